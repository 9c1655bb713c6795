//! Text formatting inside differentiated functions: `format!` of an active value, `write!` into a
//! String, `to_string`, `println!`/`eprintln!` of active values, a `{:?}` of an array, an `assert!`
//! message and a user `Display` impl; a number parsed back from text is a constant. The
//! formatting machinery only reads the values (no derivative passes through it); the derivative
//! of the arithmetic around it is unchanged. Both modes, against closed forms.
mod common;
use common::*;
use std::fmt::Write;

synthase::autodiff! {
    #[autodiff_reverse(d_logged, Duplicated, Active)]
    #[autodiff_forward(t_logged, Dual, Dual)]
    fn logged(x: &[f64]) -> f64 {
        let mut log = String::new();
        let mut s = 0.0;
        for (i, v) in x.iter().enumerate() {
            s += v * v * (i as f64 + 1.0);
            write!(log, "{i}: {s:.4} ").unwrap();
        }
        let label = format!("sum = {s:e}, first = {:?}", [x[0], s]);
        if label.len() + log.len() > 10_000 {
            return 0.0;
        }
        let t = s.to_string();
        if x.len() > 100 {
            println!("{t}");
            eprintln!("{label}");
        }
        s.sqrt() + t.len() as f64 * 0.0
    }
}

struct Point {
    a: f64,
    b: f64,
}

impl std::fmt::Display for Point {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({:.3}, {:.3})", self.a, self.b)
    }
}

synthase::autodiff! {
    #[autodiff_reverse(d_printed, Active, Active)]
    #[autodiff_forward(t_printed, Dual, Dual)]
    #[autodiff_forward(t2_printed, 2, Dual, Dual)]
    fn printed(x: f64) -> f64 {
        let y = x.sin() * x;
        println!("  (inside the derivative) y = {y:.6}");
        eprintln!("  (inside the derivative, stderr) y = {y:?}");
        assert!(y.is_finite(), "y = {y} is not finite");
        let p = Point { a: y, b: x };
        let shown = format!("{p}");
        y * y + (shown.len() as f64) * 0.0 + p.b * 0.0
    }
}

synthase::autodiff! {
    // Text parsed back into a number is a constant: y = x parsed from x's digits has no derivative.
    #[autodiff_reverse(d_reparsed, Active, Active)]
    #[autodiff_forward(t_reparsed, Dual, Dual)]
    fn reparsed(x: f64) -> f64 {
        let y: f64 = x.to_string().parse().unwrap();
        y * x
    }
}

fn main() {
    let mut c = Checker::new("formatting");
    let x = [0.5, -1.5, 2.0];
    let s: f64 = x.iter().enumerate().map(|(i, v)| v * v * (i as f64 + 1.0)).sum();
    let want: Vec<f64> = x.iter().enumerate().map(|(i, v)| v * (i as f64 + 1.0) / s.sqrt()).collect();
    let mut dx = [0.0; 3];
    let y = d_logged(&x, &mut dx, 1.0);
    c.close("logged", y, s.sqrt(), 1e-15);
    c.close_all("logged' (rev)", &dx, &want, 1e-13);
    let v = [1.0, 0.25, -0.5];
    let (y2, ty) = t_logged(&x, &v);
    c.close("logged (fwd primal)", y2, s.sqrt(), 1e-15);
    c.close("logged' v (fwd)", ty, dot(&want, &v), 1e-13);

    let x0: f64 = 0.8;
    let f = |x: f64| (x.sin() * x).powi(2);
    let w = 2.0 * x0.sin() * x0 * (x0.cos() * x0 + x0.sin());
    let (y, dr) = d_printed(x0, 1.0);
    let (_, df) = t_printed(x0, 1.0);
    c.close("printed", y, f(x0), 1e-15);
    c.close("printed' (rev)", dr, w, 1e-13);
    c.close("printed' (fwd)", df, w, 1e-13);
    let (_, d2) = t2_printed(x0, [1.0, -2.0]);
    c.close_all("printed' (fwd, width 2)", &d2, &[w, -2.0 * w], 1e-13);
    let (y, dr) = d_reparsed(1.5, 1.0);
    let (_, df) = t_reparsed(1.5, 1.0);
    c.close("reparsed", y, 2.25, 1e-15);
    c.close("reparsed' (rev, the parsed copy constant)", dr, 1.5, 1e-15);
    c.close("reparsed' (fwd, the parsed copy constant)", df, 1.5, 1e-15);
    c.finish();
}
