//! Hand-written derivatives (`#[custom_reverse]`, `#[custom_forward]`) and functions marked
//! `#[inactive]`. The registered derivatives here deliberately differ from the true ones (a factor
//! 3, or a derivative of a different function), which proves the engine calls them instead of
//! differentiating the body; a correct one (a dot product with a tape) is checked against finite
//! differences in both modes.
mod common;
use common::*;
use std::sync::atomic::{AtomicUsize, Ordering};

static AUG_CALLS: AtomicUsize = AtomicUsize::new(0);
static LOG_CALLS: AtomicUsize = AtomicUsize::new(0);

synthase::autodiff! {
    // cube(x) = x³, registered with derivatives 3× too large: 9x² (reverse), 9x² dx (forward).
    #[custom_reverse(cube_aug, cube_rev)]
    #[custom_forward(cube_fwd)]
    fn cube(x: f64) -> f64 { x * x * x }
}

// The augmented function gets the arguments (a float without shadow) and returns (result, tape).
fn cube_aug(x: f64) -> (f64, f64) {
    AUG_CALLS.fetch_add(1, Ordering::Relaxed);
    (x * x * x, x * x) // the tape: x², used by the reverse function
}
// The reverse function gets the arguments, the result's adjoint and the tape, and returns the
// adjoints of the float arguments.
fn cube_rev(_x: f64, dret: f64, x2: f64) -> f64 { 9.0 * x2 * dret }
// The forward derivative gets each argument followed by its tangent and returns the result's tangent.
fn cube_fwd(x: f64, dx: f64) -> f64 { 9.0 * x * x * dx }

synthase::autodiff! {
    // dot(x, y) with a correct custom gradient whose tape is a Vec (a copy of x).
    #[custom_reverse(dot_aug, dot_rev)]
    #[custom_forward(dot_fwd)]
    fn cdot(x: &[f64], y: &[f64]) -> f64 { x.iter().zip(y).map(|(a, b)| a * b).sum() }
}

// Slices come with their shadow slices (same length); a constant argument's shadow is a zeroed
// scratch slice.
fn dot_aug(x: &[f64], _dx: &mut [f64], y: &[f64], _dy: &mut [f64]) -> (f64, Vec<f64>) {
    (cdot(x, y), x.to_vec())
}
fn dot_rev(_x: &[f64], dx: &mut [f64], y: &[f64], dy: &mut [f64], dret: f64, x_copy: Vec<f64>) {
    for i in 0..y.len() {
        dx[i] += dret * y[i];
        dy[i] += dret * x_copy[i];
    }
}
fn dot_fwd(x: &[f64], dx: &[f64], y: &[f64], dy: &[f64]) -> f64 {
    (0..x.len()).map(|i| dx[i] * y[i] + x[i] * dy[i]).sum()
}

synthase::autodiff! {
    // A function whose body the engine never differentiates: a registered "derivative" of sin
    // that is really that of 2x (cos x would be right), and an integer argument.
    #[custom_reverse(scaled_aug, scaled_rev)]
    fn scaled(n: usize, x: f64, out: &mut f64) { *out = (n as f64) * x.sin(); }
}
fn scaled_aug(n: usize, x: f64, out: &mut f64, _dout: &mut f64) {
    scaled(n, x, out);
}
fn scaled_rev(n: usize, _x: f64, _out: &mut f64, dout: &mut f64, _tape: ()) -> f64 {
    let d = (n as f64) * 2.0 * *dout;
    *dout = 0.0;
    d
}

synthase::autodiff! {
    // Carries no derivative: counts and "logs", and its result is a constant for the derivative.
    #[inactive]
    fn log_and_scale(x: f64) -> f64 {
        LOG_CALLS.fetch_add(1, Ordering::Relaxed);
        1.0 + x
    }
}

synthase::autodiff! {
    // (w is a Const argument: the registered functions see a null shadow for it, which the
    // shims turn into a zeroed scratch slice.)
    #[autodiff_reverse(d_uses, Duplicated, Const, Active)]
    #[autodiff_forward(t_uses, Dual, Const, DualOnly)]
    fn uses(v: &[f64], w: &[f64]) -> f64 {
        cube(v[0]) + v[1] * cdot(v, w) + log_and_scale(v[2]) * v[2]
    }
}

synthase::autodiff! {
    #[autodiff_reverse(d_usescaled, Active, ActiveOnly)]
    fn use_scaled(x: f64) -> f64 { let mut o = 0.0; scaled(3, x, &mut o); o * x }
}

synthase::autodiff! {
    #[autodiff_reverse(d_dot_only, Duplicated, Duplicated, Active)]
    #[autodiff_forward(t_dot_only, Dual, Dual, DualOnly)]
    fn dot_only(x: &[f64], y: &[f64]) -> f64 { cdot(x, y) * cdot(x, x) }
}

fn main() {
    let mut k = Checker::new("custom_derivatives");
    let v = [0.7, -1.2, 0.4];
    let w = [0.5, -1.0, 2.0];

    // uses(v): the registered cube derivative (9x², not 3x²), the true dot gradient, and
    // log_and_scale's result as a constant (so d/dv2 = 1 + v2, not 1 + 2 v2).
    let c0 = cdot(&v, &w);
    let want = [9.0 * v[0] * v[0] + v[1] * w[0], c0 + v[1] * w[1], v[1] * w[2] + (1.0 + v[2])];
    LOG_CALLS.store(0, Ordering::Relaxed);
    AUG_CALLS.store(0, Ordering::Relaxed);
    let mut dv = [0.0; 3];
    let val = d_uses(&v, &mut dv, &w, 1.0);
    k.close("cube's augmented function ran once", AUG_CALLS.load(Ordering::Relaxed) as f64, 1.0, 0.0);
    k.close("inactive function ran once per gradient call", LOG_CALLS.load(Ordering::Relaxed) as f64, 1.0, 0.0);
    k.close("primal with registered functions", val, uses(&v, &w), 1e-15);
    k.close_all("reverse uses the registered derivatives", &dv, &want, 1e-13);
    let mut fwd = [0.0; 3];
    for i in 0..3 {
        let mut e = [0.0; 3];
        e[i] = 1.0;
        fwd[i] = t_uses(&v, &e, &w);
    }
    k.close_all("forward uses the registered derivatives", &fwd, &want, 1e-13);
    // The true gradient differs (so the body was not differentiated).
    let fd = fd_grad(|x| uses(x, &w), &v, 1e-6);
    k.close("FD of the body differs in d/dv0 (3x² vs 9x²)", fd[0], 3.0 * v[0] * v[0] + v[1] * w[0], 1e-7);
    k.close("FD of the body differs in d/dv2 (inactive)", fd[2], v[1] * w[2] + 1.0 + 2.0 * v[2], 1e-7);

    // The dot product's registered gradient is the true one: FD agrees, in both modes.
    let x = [0.3, -0.8, 1.1, 0.25];
    let y = [1.5, 0.2, -0.6, 2.0];
    let (mut dx, mut dy) = ([0.0; 4], [0.0; 4]);
    d_dot_only(&x, &mut dx, &y, &mut dy, 1.0);
    let xy: Vec<f64> = x.iter().chain(&y).copied().collect();
    let f = |z: &[f64]| dot_only(&z[..4], &z[4..]);
    let g = fd_grad(f, &xy, 1e-6);
    k.close_all("custom dot gradient vs FD (x)", &dx, &g[..4], 1e-7);
    k.close_all("custom dot gradient vs FD (y)", &dy, &g[4..], 1e-7);
    for i in 0..8 {
        let mut e = [0.0; 8];
        e[i] = 1.0;
        let t = t_dot_only(&x, &e[..4], &y, &e[4..]);
        k.close(&format!("custom dot forward = reverse [{i}]"), t, if i < 4 { dx[i] } else { dy[i - 4] }, 1e-13);
    }

    // A registered gradient for a function writing through a reference, with an integer argument.
    let xs = 0.6;
    k.close("registered gradient replaces the body", d_usescaled(xs, 1.0), 3.0 * 2.0 * xs + 3.0 * xs.sin(), 1e-13);
    k.close("  (the true one differs)", fd1(use_scaled, xs, 1e-6), 3.0 * xs.cos() * xs + 3.0 * xs.sin(), 1e-7);
    k.finish()
}
