//! Error handling inside differentiated functions: helpers returning `Result<f64, String>` (its
//! `Err` built with `format!` of an active value), `?` on them, an error enum with a `String`
//! payload returned beside an `Ok(Vec<f64>)`, and `Option<f64>`. In release builds the optimizer merges
//! the `Ok` and `Err` paths and reads the String's buffer address as an integer beside the float
//! it shares a slot with; the String's memory is only ever written by std's formatting, so it
//! needs no shadow. Both modes on both paths, against finite differences. (An error type with an
//! f64 payload beside an `Ok(Vec<f64>)` puts a heap address and a float in one slot: refused,
//! diagnostics/enum_union.rs.)
mod common;
use common::*;

fn checked_sqrt(x: f64) -> Result<f64, String> {
    if x < 0.0 {
        Err(format!("sqrt of negative {x}"))
    } else {
        Ok(x.sqrt())
    }
}

#[derive(Debug)]
enum SolveError {
    Singular(String),
    TooLarge { index: usize },
}

fn solve2(a: f64, b: f64, c: f64, d: f64, r: &[f64]) -> Result<Vec<f64>, SolveError> {
    let det = a * d - b * c;
    if det.abs() < 1e-3 {
        return Err(SolveError::Singular(format!("det = {det:e}")));
    }
    let x = vec![(d * r[0] - b * r[1]) / det, (a * r[1] - c * r[0]) / det];
    if x.iter().any(|v| v.abs() > 1e6) {
        return Err(SolveError::TooLarge { index: 0 });
    }
    Ok(x)
}

fn scaled(v: &[f64]) -> Result<f64, String> {
    let n = checked_sqrt(v.iter().map(|x| x * x).sum())?;
    Ok(n * (v[0] + 1.0))
}

fn scaled_solve(v: &[f64]) -> Result<f64, String> {
    let n = scaled(v)?;
    match solve2(v[0], 1.0, 0.5, v[1] + 2.0, &[1.0, v[2]]) {
        Ok(s) => Ok(n * s[0] + s[1]),
        Err(e) => Err(format!("{e:?}")),
    }
}

fn positive(x: f64) -> Option<f64> {
    (x > 0.0).then(|| x.ln())
}

synthase::autodiff! {
    #[autodiff_reverse(d_root, Active, Active)]
    #[autodiff_forward(t_root, Dual, Dual)]
    fn root(x: f64) -> f64 {
        match checked_sqrt(x) {
            Ok(v) => v * x,
            Err(_) => x * x,
        }
    }
}

synthase::autodiff! {
    #[autodiff_reverse(d_chain, Duplicated, Active)]
    #[autodiff_forward(t_chain, Dual, Dual)]
    fn chain(v: &[f64]) -> f64 {
        match scaled_solve(v) {
            Ok(y) => y,
            Err(msg) => -(msg.len() as f64) * 0.0 - v[0],
        }
    }
}

synthase::autodiff! {
    #[autodiff_reverse(d_logp, Active, Active)]
    #[autodiff_forward(t_logp, Dual, Dual)]
    fn logp(x: f64) -> f64 {
        positive(x).unwrap_or(0.0) * x + positive(-x).map_or(1.0, |l| l * 2.0)
    }
}

fn root_plain(x: f64) -> f64 {
    match checked_sqrt(x) {
        Ok(v) => v * x,
        Err(_) => x * x,
    }
}
fn chain_plain(v: &[f64]) -> f64 {
    match scaled_solve(v) {
        Ok(y) => y,
        Err(_) => -v[0],
    }
}
fn logp_plain(x: f64) -> f64 {
    positive(x).unwrap_or(0.0) * x + positive(-x).map_or(1.0, |l| l * 2.0)
}

fn main() {
    let mut c = Checker::new("error_results");
    for &x in &[0.7, -0.6] {
        let (y, dr) = d_root(x, 1.0);
        let (_, df) = t_root(x, 1.0);
        let fd = fd1(root_plain, x, 1e-6);
        c.close(&format!("root({x})"), y, root_plain(x), 1e-15);
        c.close(&format!("root'({x}) rev"), dr, fd, 1e-7);
        c.close(&format!("root'({x}) fwd vs rev"), df, dr, 1e-14);

        let (y, dr) = d_logp(x, 1.0);
        let (_, df) = t_logp(x, 1.0);
        let fd = fd1(logp_plain, x, 1e-6);
        c.close(&format!("logp({x})"), y, logp_plain(x), 1e-15);
        c.close(&format!("logp'({x}) rev"), dr, fd, 1e-7);
        c.close(&format!("logp'({x}) fwd vs rev"), df, dr, 1e-14);
    }
    // Ok path, and a singular system (Err with a String payload, then map_err and `?`).
    for v in [[0.8, -0.3, 1.5], [0.5, -1.0, 0.3]] {
        let mut g = [0.0; 3];
        let y = d_chain(&v, &mut g, 1.0);
        c.close(&format!("chain({v:?})"), y, chain_plain(&v), 1e-14);
        let fd = fd_grad(chain_plain, &v, 1e-6);
        c.close_all(&format!("chain'({v:?}) rev"), &g, &fd, 1e-6);
        for k in 0..3 {
            let mut e = [0.0; 3];
            e[k] = 1.0;
            let (_, t) = t_chain(&v, &e);
            c.close(&format!("chain'({v:?}) fwd e{k} vs rev"), t, g[k], 1e-13);
        }
    }
    c.finish();
}
