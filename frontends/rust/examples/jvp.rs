//! Forward mode: Jacobian-vector products of a small vector-valued function, one direction at a
//! time and two at once (vector width 2), checked against finite differences and against reverse
//! mode with the dot-product test <J v, u> = <v, Jᵀ u>.
mod common;
use common::*;

synthase::autodiff! {
    /// y = F(x): a mixing layer with a smooth nonlinearity (n inputs, n outputs).
    #[autodiff_forward(jvp, Dual, Dual)]
    #[autodiff_forward(jvp2, 2, Dual, Dual)]
    #[autodiff_reverse(vjp, Duplicated, DuplicatedOnly)]
    #[allow(clippy::needless_range_loop)]
    fn layer(x: &[f64], y: &mut [f64]) {
        let n = x.len();
        for i in 0..n {
            let mut s = 0.0;
            for j in 0..n {
                let a = ((i * 7 + j * 3) % 5) as f64 * 0.25 - 0.5;
                s += a * x[j];
            }
            y[i] = s.sin() * x[i] + (x[(i + 1) % n] * x[i]).exp() * 0.1;
        }
    }
}

synthase::autodiff! {
    /// A scalar function of a scalar: returns (value, derivative) in forward mode.
    #[autodiff_forward(d_g, Dual, Const, Dual)]
    #[autodiff_forward(d_g_only, DualOnly, Const, DualOnly)]
    fn g(x: f64, k: u32) -> f64 {
        let mut acc = x;
        for _ in 0..k {
            acc = (acc * acc + 1.0).sqrt() * x.cos();
        }
        acc
    }
}

fn eval(x: &[f64]) -> Vec<f64> {
    let mut y = vec![0.0; x.len()];
    layer(x, &mut y);
    y
}

fn main() {
    let mut c = Checker::new("jvp");
    let mut rng = Lcg(7);
    let n = 6;
    let x = rng.vec(n);
    let v = rng.vec(n);
    let v2 = rng.vec(n);

    // One direction.
    let mut y = vec![0.0; n];
    let mut jv = vec![0.0; n];
    jvp(&x, &v, &mut y, &mut jv);
    c.close_all("primal y", &y, &eval(&x), 1e-12);
    let fd = fd_jvp(eval, &x, &v, 1e-6);
    c.close_all("J v", &jv, &fd, 1e-6);

    // Two directions in one call (width 2).
    let mut y2 = vec![0.0; n];
    let (mut t0, mut t1) = (vec![0.0; n], vec![0.0; n]);
    jvp2(&x, [&v, &v2], &mut y2, [&mut t0, &mut t1]);
    c.close_all("width 2: J v", &t0, &fd, 1e-6);
    c.close_all("width 2: J v2", &t1, &fd_jvp(eval, &x, &v2, 1e-6), 1e-6);

    // Dot-product test against reverse mode: <J v, u> = <v, Jᵀ u>.
    let u = rng.vec(n);
    let mut jtu = vec![0.0; n];
    let mut y3 = vec![0.0; n];
    let mut ybar = u.clone();
    vjp(&x, &mut jtu, &mut y3, &mut ybar);
    c.close("<J v, u> = <v, J^T u>", dot(&jv, &u), dot(&v, &jtu), 1e-10);

    // Scalar forward mode, primal and tangent, and tangent only.
    let (val, dg) = d_g(0.7, 1.0, 3);
    c.close("g(0.7)", val, g(0.7, 3), 1e-14);
    c.close("g'(0.7)", dg, fd1(|x| g(x, 3), 0.7, 1e-6), 1e-6);
    c.close("DualOnly: 2 g'(0.7)", d_g_only(0.7, 2.0, 3), 2.0 * dg, 1e-12);
    c.finish()
}
