//! Reverse mode with a width (N gradients from one forward sweep and one tape), forward mode with
//! strided tangents (`Dualv`: all lanes in one buffer), and derivatives nested inside
//! differentiated functions: a Hessian-vector product by forward over reverse, a second derivative
//! by reverse over forward, a third one by forward over forward over reverse, and a Newton solver
//! driven by the Hessian-vector product. Checked against analytic values, finite differences and
//! one scalar call per lane.
mod common;
use common::*;

synthase::autodiff! {
    // y = A(x): y[0] = Σ x_i² w_i,  y[1] = Π-ish mix, y[2] = sin(x0) x1. A Jacobian's rows come
    // from reverse mode with one seed per output, all at once at width 3.
    #[autodiff_reverse(jac_rows, 3, Duplicated, Const, Duplicated)]
    #[autodiff_reverse(jac_row, Duplicated, Const, Duplicated)]
    #[autodiff_forward(jac_cols_v, 3, Dualv, Const, DualvOnly)]
    #[autodiff_forward(jac_col, Dual, Const, DualOnly)]
    fn model(x: &[f64], w: &[f64], y: &mut [f64]) {
        let mut s = 0.0;
        for i in 0..x.len() { s += x[i] * x[i] * w[i]; }
        y[0] = s;
        y[1] = x[0] * x[1] + (x[2] * x[1]).exp();
        y[2] = x[0].sin() * x[1];
    }
}

synthase::autodiff! {
    // Scalars at width 4: four seeds in, four adjoints per active argument out.
    #[autodiff_reverse(q_w4, 4, Active, Active, Active)]
    #[autodiff_reverse(q_w2_only, 2, Active, Const, ActiveOnly)]
    #[autodiff_reverse(q_1, Active, Active, ActiveOnly)]
    fn q(a: f64, b: f64) -> f64 { a * a * b + b.sin() * a }
}

synthase::autodiff! {
    // A reference parameter at width 2, and f32.
    #[autodiff_reverse(r_ref_w2, 2, Duplicated, Active, ActiveOnly)]
    #[autodiff_forward(f_ref_v2, 2, Dualv, Const, DualOnly)]
    fn on_ref(p: &[f64; 3], s: f32) -> f32 { (p[0] * p[1] + p[2].cos()) as f32 * s * s }
}

// ---- nesting -------------------------------------------------------------------------------
synthase::autodiff! {
    // Rosenbrock in n dimensions.
    #[autodiff_reverse(d_rosen, Duplicated, Active)]
    fn rosen(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() - 1 {
            let a = 1.0 - x[i];
            let b = x[i + 1] - x[i] * x[i];
            s += a * a + 100.0 * b * b;
        }
        s
    }
}

synthase::autodiff! {
    // The gradient as a function: forward mode of it is a Hessian-vector product.
    #[autodiff_forward(hvp_rosen, Dual, DualOnly)]
    fn grad_rosen(x: &[f64], g: &mut [f64]) {
        for v in g.iter_mut() { *v = 0.0; }
        d_rosen(x, g, 1.0);
    }
}

synthase::autodiff! {
    // h(x) = x³ sin x: its forward derivative, differentiated again by reverse mode and forward mode.
    #[autodiff_forward(dh, Dual, DualOnly)]
    #[autodiff_reverse(gh, Active, ActiveOnly)]
    fn h(x: f64) -> f64 { x * x * x * x.sin() }
}

synthase::autodiff! {
    #[autodiff_reverse(d2h_rev, Active, ActiveOnly)]   // reverse over forward: h''
    #[autodiff_forward(d2h_fwd, Dual, DualOnly)]       // forward over forward: h''
    fn h1(x: f64) -> f64 { dh(x, 1.0) }
}

synthase::autodiff! {
    #[autodiff_forward(d2h_fr, Dual, DualOnly)]        // forward over reverse: h''
    fn g1(x: f64) -> f64 { gh(x, 1.0) }
}

synthase::autodiff! {
    #[autodiff_forward(d3h, Dual, DualOnly)]           // forward over forward over reverse: h'''
    fn g2(x: f64) -> f64 { d2h_fr(x, 1.0) }
}

fn model_vec(x: &[f64], w: &[f64]) -> Vec<f64> {
    let mut y = vec![0.0; 3];
    model(x, w, &mut y);
    y
}

fn main() {
    let mut k = Checker::new("vector_nested");
    let x = [0.7, -0.4, 0.9];
    let w = [1.5, 2.0, -0.5];

    // Jacobian rows by reverse mode, width 3: seeds e0, e1, e2 in the output shadows.
    let mut rows = [[0.0f64; 3]; 3];
    let mut seeds = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    let mut y = [0.0; 3];
    {
        let [r0, r1, r2] = &mut rows;
        let [s0, s1, s2] = &mut seeds;
        jac_rows(&x, [r0, r1, r2], &w, &mut y, [s0, s1, s2]);
    }
    let want_y = model_vec(&x, &w);
    k.close_all("width-3 reverse: primal y", &y, &want_y, 1e-15);
    for i in 0..3 {
        // Against one scalar reverse call per output, and against finite differences.
        let mut row = [0.0; 3];
        let mut seed = [0.0; 3];
        seed[i] = 1.0;
        let mut yy = [0.0; 3];
        jac_row(&x, &mut row, &w, &mut yy, &mut seed);
        k.close_all(&format!("width-3 row {i} = scalar call"), &rows[i], &row, 1e-14);
        let fd = fd_grad(|xx| model_vec(xx, &w)[i], &x, 1e-6);
        k.close_all(&format!("width-3 row {i} vs FD"), &rows[i], &fd, 1e-7);
    }

    // Jacobian columns by forward mode, width 3, strided: lane l's tangent at l·len in one buffer.
    let dx: Vec<f64> = (0..9).map(|j| if j % 4 == 0 { 1.0 } else { 0.0 }).collect(); // identity lanes
    let mut dy = vec![0.0; 9];
    jac_cols_v(&x, &dx, &w, &mut y, &mut dy);
    for l in 0..3 {
        let mut col = [0.0; 3];
        let mut yy = [0.0; 3];
        jac_col(&x, &dx[3 * l..3 * l + 3], &w, &mut yy, &mut col);
        k.close_all(&format!("Dualv lane {l} = scalar forward"), &dy[3 * l..3 * l + 3], &col, 1e-14);
        let rows_col: Vec<f64> = (0..3).map(|i| rows[i][l]).collect();
        k.close_all(&format!("Dualv lane {l} = reverse rows"), &dy[3 * l..3 * l + 3], &rows_col, 1e-13);
    }

    // Scalars, width 4 and 2.
    let (a, b) = (0.8f64, -1.3f64);
    let (qa, qb) = (2.0 * a * b + b.sin(), a * a + b.cos() * a);
    let s = [1.0, -2.0, 0.5, 3.0];
    let (v, da, db) = q_w4(a, b, s);
    k.close("width 4: primal", v, q(a, b), 1e-15);
    for l in 0..4 {
        k.close(&format!("width 4: da lane {l}"), da[l], s[l] * qa, 1e-13);
        k.close(&format!("width 4: db lane {l}"), db[l], s[l] * qb, 1e-13);
        let (sa, sb) = q_1(a, b, s[l]);
        k.close(&format!("width 4: da lane {l} = scalar call"), da[l], sa, 1e-14);
        k.close(&format!("width 4: db lane {l} = scalar call"), db[l], sb, 1e-14);
    }
    let da2 = q_w2_only(a, b, [2.0, -1.0]);
    k.close("width 2 ActiveOnly: lane 0", da2[0], 2.0 * qa, 1e-13);
    k.close("width 2 ActiveOnly: lane 1", da2[1], -qa, 1e-13);
    k.close("width 2 vs FD", da2[0], 2.0 * fd1(|t| q(t, b), a, 1e-6), 1e-8);

    // A reference (array) parameter at width 2, f32 active scalar.
    let p = [0.3, 1.2, -0.7];
    let sp = 1.5f32;
    let (mut d0, mut d1) = ([0.0; 3], [0.0; 3]);
    let ds = r_ref_w2(&p, [&mut d0, &mut d1], sp, [1.0, 2.0]);
    let c = (sp * sp) as f64;
    let want = [p[1] * c, p[0] * c, -p[2].sin() * c];
    for i in 0..3 {
        k.close(&format!("ref width 2: lane 0 [{i}]"), d0[i], want[i], 1e-6);
        k.close(&format!("ref width 2: lane 1 [{i}]"), d1[i], 2.0 * want[i], 1e-6);
    }
    let dsv = 2.0 * ((p[0] * p[1] + p[2].cos()) as f32) * sp;
    k.close("f32 Active width 2: lane 1", ds[1] as f64, 2.0 * dsv as f64, 1e-5);
    let tv = [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]];
    let t = f_ref_v2(&p, &tv, sp);
    k.close("Dualv reference lane 0", t[0] as f64, want[0], 1e-5);
    k.close("Dualv reference lane 1", t[1] as f64, want[2], 1e-5);

    // Forward over reverse: Hessian-vector product of Rosenbrock, vs FD of the gradient.
    let n = 6;
    let xr: Vec<f64> = (0..n).map(|i| 0.3 + 0.1 * i as f64).collect();
    let vr: Vec<f64> = (0..n).map(|i| if i % 2 == 0 { 1.0 } else { -0.5 }).collect();
    let mut g = vec![0.0; n];
    let mut hv = vec![0.0; n];
    hvp_rosen(&xr, &vr, &mut g, &mut hv);
    let grad = |xx: &[f64]| {
        let mut gg = vec![0.0; xx.len()];
        grad_rosen(xx, &mut gg);
        gg
    };
    let fd = fd_jvp(grad, &xr, &vr, 1e-6);
    k.close_all("fwd∘rev Hessian-vector product vs FD", &hv, &fd, 1e-6);

    // Second derivatives of h(x) = x³ sin x three ways, and the third derivative.
    let xh = 0.9f64;
    let (sx, cx) = (xh.sin(), xh.cos());
    let h2 = 6.0 * xh * sx + 6.0 * xh * xh * cx - xh * xh * xh * sx;
    let h3 = 6.0 * sx + 18.0 * xh * cx - 9.0 * xh * xh * sx - xh * xh * xh * cx;
    k.close("rev∘fwd h''", d2h_rev(xh, 1.0), h2, 1e-12);
    k.close("fwd∘fwd h''", d2h_fwd(xh, 1.0), h2, 1e-12);
    k.close("fwd∘rev h''", d2h_fr(xh, 1.0), h2, 1e-12);
    k.close("fwd∘fwd∘rev h'''", d3h(xh, 1.0), h3, 1e-11);

    // Newton's method on Rosenbrock with conjugate gradients on Hessian-vector products.
    let mut xn: Vec<f64> = vec![-1.2, 1.0, -1.2, 1.0];
    for _ in 0..50 {
        let gr = grad(&xn);
        if dot(&gr, &gr).sqrt() < 1e-10 { break; }
        // CG for H p = -g, Hessian-vector products by fwd∘rev.
        let m = xn.len();
        let (mut p, mut r) = (vec![0.0; m], gr.iter().map(|v| -v).collect::<Vec<_>>());
        let mut d = r.clone();
        for _ in 0..2 * m {
            let (mut gg, mut hd) = (vec![0.0; m], vec![0.0; m]);
            hvp_rosen(&xn, &d, &mut gg, &mut hd);
            let dhd = dot(&d, &hd);
            if dhd <= 0.0 { break; }
            let alpha = dot(&r, &r) / dhd;
            for i in 0..m { p[i] += alpha * d[i]; }
            let rr = dot(&r, &r);
            for i in 0..m { r[i] -= alpha * hd[i]; }
            if dot(&r, &r).sqrt() < 1e-14 { break; }
            let beta = dot(&r, &r) / rr;
            for i in 0..m { d[i] = r[i] + beta * d[i]; }
        }
        if dot(&p, &p) == 0.0 { p = gr.iter().map(|v| -1e-3 * v).collect(); }
        // Backtracking keeps the steps descending.
        let f0 = rosen(&xn);
        let mut t = 1.0;
        while t > 1e-8 {
            let xt: Vec<f64> = xn.iter().zip(&p).map(|(a, b)| a + t * b).collect();
            if rosen(&xt) < f0 { xn = xt; break; }
            t *= 0.5;
        }
    }
    k.close_all("Newton (HVP + CG) reaches the minimum", &xn, &[1.0; 4], 1e-8);
    k.finish()
}
