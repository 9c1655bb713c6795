//! Every activity and shape the macros support, each checked against an analytic derivative:
//! f32 and f64 scalars, several active arguments (returned as a tuple), references, slices,
//! Const / ActiveOnly returns, DuplicatedOnly / DualOnly, and forward vector widths 2 and 4.
//! (The functions avoid indexing on purpose: the other examples cover bounds checks and panics.)
mod common;
use common::*;

synthase::autodiff! {
    // f(x, y) = x² y + sin y
    #[autodiff_reverse(r_two, Active, Active, Active)]        // -> (f, df/dx, df/dy)
    #[autodiff_reverse(r_two_only, Active, Active, ActiveOnly)] // -> (df/dx, df/dy)
    #[autodiff_reverse(r_x, Active, Const, ActiveOnly)]       // -> df/dx
    #[autodiff_forward(f_two, Dual, Dual, Dual)]              // -> (f, tangent)
    #[autodiff_forward(f_w2, 2, Dual, Const, DualOnly)]       // -> [tangent; 2]
    #[autodiff_forward(f_w4, 4, Dual, Dual, DualOnly)]        // -> [tangent; 4]
    fn two(x: f64, y: f64) -> f64 { x * x * y + y.sin() }
}

synthase::autodiff! {
    // Single precision: g(a, b) = a·b³ (f32 travels through varargs as f64).
    #[autodiff_reverse(r_g32, Active, Active, ActiveOnly)]
    #[autodiff_forward(f_g32, Dual, Const, DualOnly)]
    fn g32(a: f32, b: f32) -> f32 { a * b * b * b }
}

synthase::autodiff! {
    // Three active inputs (the adjoints come back through a struct return in memory).
    #[autodiff_reverse(r_three, Active, Active, Active, ActiveOnly)]
    fn three(a: f64, b: f64, c: f64) -> f64 { a * b + b * c + (a * c).exp() }
}

synthase::autodiff! {
    // References: *out = scale · Σ x[i]² ; returns nothing.
    #[autodiff_reverse(r_sumsq, Const, Duplicated, DuplicatedOnly)]
    #[autodiff_forward(f_sumsq, Const, Dual, DualOnly)]
    fn sumsq(scale: &f64, x: &[f64], out: &mut f64) {
        let mut s = 0.0;
        for v in x { s += v * v; }
        *out = *scale * s;
    }
}

synthase::autodiff! {
    // A Const return in reverse mode (not differentiated) next to a Duplicated output slice:
    // y[i] = c · x[i]³, returns the length (an integer).
    #[autodiff_reverse(r_cube, Active, Duplicated, Duplicated, Const)]
    fn cube(c: f64, x: &[f64], y: &mut [f64]) -> usize {
        for (yi, xi) in y.iter_mut().zip(x) { *yi = c * xi * xi * xi; }
        x.len()
    }
}

fn main() {
    let mut k = Checker::new("activities");
    let (x, y) = (1.3f64, -0.4f64);
    let (fx, fy) = (2.0 * x * y, x * x + y.cos());

    let (v, dx, dy) = r_two(x, y, 1.0);
    k.close("reverse Active return: value", v, two(x, y), 1e-15);
    k.close("reverse 2 Active args: df/dx", dx, fx, 1e-12);
    k.close("reverse 2 Active args: df/dy", dy, fy, 1e-12);
    let (dx2, dy2) = r_two_only(x, y, 2.0);
    k.close("reverse ActiveOnly, seed 2: df/dx", dx2, 2.0 * fx, 1e-12);
    k.close("reverse ActiveOnly, seed 2: df/dy", dy2, 2.0 * fy, 1e-12);
    k.close("reverse Const arg: df/dx", r_x(x, y, 1.0), fx, 1e-12);

    let (v, t) = f_two(x, 0.5, y, -1.5);
    k.close("forward Dual return: value", v, two(x, y), 1e-15);
    k.close("forward Dual return: tangent", t, 0.5 * fx - 1.5 * fy, 1e-12);
    let [t0, t1] = f_w2(x, [1.0, 3.0], y);
    k.close("forward width 2: lane 0", t0, fx, 1e-12);
    k.close("forward width 2: lane 1", t1, 3.0 * fx, 1e-12);
    let t4 = f_w4(x, [1.0, 0.0, 2.0, 1.0], y, [0.0, 1.0, 0.0, -1.0]);
    k.close_all("forward width 4", &t4, &[fx, fy, 2.0 * fx, fx - fy], 1e-12);

    let (a, b) = (1.5f32, 0.75f32);
    let (da, db) = r_g32(a, b, 1.0);
    k.close("f32 reverse: dg/da", da as f64, (b * b * b) as f64, 1e-6);
    k.close("f32 reverse: dg/db", db as f64, (3.0 * a * b * b) as f64, 1e-6);
    k.close("f32 forward: dg/da", f_g32(a, 1.0, b) as f64, (b * b * b) as f64, 1e-6);

    let (ta, tb, tc) = r_three(0.5, -1.0, 2.0, 1.0);
    let e = (0.5f64 * 2.0).exp();
    k.close("3 Active args: d/da", ta, -1.0 + 2.0 * e, 1e-12);
    k.close("3 Active args: d/db", tb, 0.5 + 2.0, 1e-12);
    k.close("3 Active args: d/dc", tc, -1.0 + 0.5 * e, 1e-12);

    let xs = [0.5, -1.0, 2.0];
    let scale = 3.0;
    let mut dxs = [0.0; 3];
    let mut out = 0.0;
    let mut dout = 1.0;
    r_sumsq(&scale, &xs, &mut dxs, &mut out, &mut dout);
    k.close_all("reverse DuplicatedOnly output: d out/dx", &dxs, &[3.0, -6.0, 12.0], 1e-12);
    k.close("reverse: output shadow consumed (zeroed)", dout, 0.0, 0.0);
    let mut out2 = 0.0;
    let mut tout = 0.0;
    f_sumsq(&scale, &xs, &[1.0, 1.0, 1.0], &mut out2, &mut tout);
    k.close("forward DualOnly output: tangent", tout, 3.0 * 2.0 * (0.5 - 1.0 + 2.0), 1e-12);

    let xc = [1.0, 2.0];
    let mut dxc = [0.0; 2];
    let mut yc = [0.0; 2];
    let mut ybar = [1.0, 0.5];
    let dc = r_cube(2.0, &xc, &mut dxc, &mut yc, &mut ybar);
    k.close_all("Const return: primal y", &yc, &[2.0, 16.0], 1e-12);
    k.close("Const return: dc", dc, 1.0 * 1.0 + 0.5 * 8.0, 1e-12);
    k.close_all("Const return: dx", &dxc, &[6.0 * 1.0, 0.5 * 6.0 * 4.0], 1e-12);
    k.finish()
}
