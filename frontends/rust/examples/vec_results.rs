//! Functions that return a `Vec<f64>` (or take and return one by value) in forward mode: the
//! tangent comes back as a `Vec<f64>` of its own, built by the engine as the result's shadow,
//! at width 1 and width 2, with the primal (`Dual`) and without it (`DualOnly`). In reverse
//! mode such a result is `Const` (its seed would have no way into the shadow: the macro refuses
//! `Active` on it); the adjoint flows through a `Duplicated` slice the function also writes.
//! Also: a float-to-integer cast (`as usize`, LLVM's saturating fptoui) picking a table cell,
//! whose derivative is the interpolation's slope, in both modes.
mod common;
use common::*;

synthase::autodiff! {
    #[autodiff_forward(t_cubes, Dual, Dual)]
    #[autodiff_forward(t2_cubes, 2, Dual, Dual)]
    fn cubes(x: &[f64]) -> Vec<f64> {
        x.iter().map(|v| v * v * v).collect()
    }
}

synthase::autodiff! {
    #[autodiff_forward(t_waves, Dual, DualOnly)]
    fn waves(x: &[f64]) -> Vec<f64> {
        let mut out = Vec::with_capacity(2 * x.len());
        for v in x {
            out.push(v.sin());
            out.push(v.cos() * v);
        }
        out
    }
}

synthase::autodiff! {
    #[autodiff_reverse(d_square_in_place, Duplicated, Const)]
    fn square_in_place(x: &mut [f64]) -> Vec<f64> {
        for v in x.iter_mut() {
            *v = *v * *v;
        }
        x.to_vec()
    }
}

synthase::autodiff! {
    #[autodiff_reverse(d_lookup, Active, Active)]
    #[autodiff_forward(t_lookup, Dual, Dual)]
    fn lookup(x: f64) -> f64 {
        let table = [1.0, 2.0, 4.0, 7.0, 11.0, 16.0, 22.0, 29.0, 37.0, 46.0, 56.0];
        let i = ((x * 10.0) as usize).min(9);
        let t = x * 10.0 - i as f64;
        (table[i] * (1.0 - t) + table[i + 1] * t) * x
    }
}

fn main() {
    let mut c = Checker::new("vec_results");
    let x = [0.5, -1.25, 2.0];
    let v = [1.0, 0.5, -2.0];
    let w = [0.0, 1.0, 0.25];

    let (y, ty) = t_cubes(&x, &v);
    c.close_all("cubes", &y, &cubes(&x), 0.0);
    c.close_all("cubes' v (fwd)", &ty, &fd_jvp(|x| cubes(x), &x, &v, 1e-6), 1e-7);
    let (y2, ty2) = t2_cubes(&x, [&v, &w]);
    c.close_all("cubes (width 2)", &y2, &cubes(&x), 0.0);
    c.close_all("cubes' v (width 2, lane 0)", &ty2[0], &ty, 0.0);
    c.close_all("cubes' w (width 2, lane 1)", &ty2[1], &fd_jvp(|x| cubes(x), &x, &w, 1e-6), 1e-7);

    let tw = t_waves(&x, &v);
    c.close_all("waves' v (fwd, DualOnly)", &tw, &fd_jvp(|x| waves(x), &x, &v, 1e-6), 1e-7);

    // d/dx of sum(seed * x^2) lands in the shadow of x, which the function overwrites.
    let mut xs = x;
    let mut dx = [1.0, 2.0, -1.0];
    d_square_in_place(&mut xs, &mut dx);
    c.close_all("square_in_place", &xs, &[0.25, 1.5625, 4.0], 1e-15);
    c.close_all("square_in_place' (rev)", &dx, &[1.0, -5.0, -4.0], 1e-15);

    for &x0 in &[0.05, 0.37, 0.64, 0.93] {
        let (y, dr) = d_lookup(x0, 1.0);
        let (y2, df) = t_lookup(x0, 1.0);
        c.close(&format!("lookup({x0})"), y, lookup(x0), 0.0);
        c.close(&format!("lookup({x0}) (fwd primal)"), y2, lookup(x0), 0.0);
        c.close(&format!("lookup'({x0}) rev vs fd"), dr, fd1(lookup, x0, 1e-7), 1e-6);
        c.close(&format!("lookup'({x0}) fwd vs rev"), df, dr, 1e-12);
    }
    c.finish();
}
