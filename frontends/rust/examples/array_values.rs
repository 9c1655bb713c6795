//! Fixed-size arrays returned by value: a matrix product of `[[f64; N]; N]` accumulated with `+=`
//! into a local and returned, used twice (tr(A^3)), a 3x3 version, and a `[f64; 3]` cross product.
//! rustc types every local as a byte array (`alloca [32 x i8]`); that once counted as a type
//! stating the copy's layout, so the copy of the returned matrix moved its second row as
//! integers with no derivative: the dev build's gradient was wrong (release was right).
mod common;
use common::*;

fn mm2(a: &[[f64; 2]; 2], b: &[[f64; 2]; 2]) -> [[f64; 2]; 2] {
    let mut c = [[0.0; 2]; 2];
    for i in 0..2 {
        for j in 0..2 {
            for k in 0..2 {
                c[i][j] += a[i][k] * b[k][j];
            }
        }
    }
    c
}

fn mm3(a: &[[f64; 3]; 3], b: &[[f64; 3]; 3]) -> [[f64; 3]; 3] {
    let mut c = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            for k in 0..3 {
                c[i][j] += a[i][k] * b[k][j];
            }
        }
    }
    c
}

fn cross(u: [f64; 3], v: [f64; 3]) -> [f64; 3] {
    [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]]
}

synthase::autodiff! {
    #[autodiff_reverse(d_tr_cube, Duplicated, Active)]
    #[autodiff_forward(t_tr_cube, Dual, Dual)]
    fn tr_cube(a: &[[f64; 2]; 2]) -> f64 {
        let p = mm2(a, a);
        let q = mm2(&p, a);
        q[0][0] + q[1][1]
    }
}

synthase::autodiff! {
    #[autodiff_reverse(d_cube_sum3, Duplicated, Active)]
    #[autodiff_forward(t_cube_sum3, Dual, Dual)]
    fn cube_sum3(a: &[[f64; 3]; 3]) -> f64 {
        let q = mm3(a, &mm3(a, a));
        q.iter().map(|r| r.iter().sum::<f64>()).sum()
    }
}

synthase::autodiff! {
    #[autodiff_reverse(d_triple, Duplicated, Active)]
    fn triple(x: &[f64; 9]) -> f64 {
        let u = [x[0], x[1], x[2]];
        let v = [x[3], x[4], x[5]];
        let w = cross(cross(u, v), [x[6], x[7], x[8]]);
        w[0] * w[0] + w[1] + w[2] * 0.5
    }
}

fn flat3(a: &[[f64; 3]; 3]) -> Vec<f64> {
    a.iter().flatten().cloned().collect()
}
fn unflat3(x: &[f64]) -> [[f64; 3]; 3] {
    [[x[0], x[1], x[2]], [x[3], x[4], x[5]], [x[6], x[7], x[8]]]
}

fn main() {
    let mut c = Checker::new("array_values");
    let a = [[1.0, 2.0], [3.0, 4.0]];
    // d tr(A^3)/dA = 3 (A^2)^T, A^2 = [[7, 10], [15, 22]]
    let mut da = [[0.0; 2]; 2];
    let v = d_tr_cube(&a, &mut da, 1.0);
    c.close("tr(A^3)", v, 155.0, 1e-12);
    c.close_all("d tr(A^3)/dA", &[da[0][0], da[0][1], da[1][0], da[1][1]], &[21.0, 45.0, 30.0, 66.0], 1e-12);
    for (k, want) in [21.0, 45.0, 30.0, 66.0].iter().enumerate() {
        let mut e = [[0.0; 2]; 2];
        e[k / 2][k % 2] = 1.0;
        let (_, t) = t_tr_cube(&a, &e);
        c.close(&format!("forward d tr(A^3)/dA[{k}]"), t, *want, 1e-12);
    }

    let b = [[0.5, -0.2, 0.3], [0.1, 0.9, -0.4], [0.25, 0.6, 0.7]];
    let mut db = [[0.0; 3]; 3];
    d_cube_sum3(&b, &mut db, 1.0);
    let fd = fd_grad(|x: &[f64]| cube_sum3(&unflat3(x)), &flat3(&b), 1e-6);
    c.close_all("d sum(A^3)/dA (3x3)", &flat3(&db), &fd, 1e-6);
    for k in 0..9 {
        let mut e = [0.0; 9];
        e[k] = 1.0;
        let (_, t) = t_cube_sum3(&b, &unflat3(&e));
        c.close(&format!("forward vs reverse 3x3 [{k}]"), t, flat3(&db)[k], 1e-10);
    }

    let x = [0.3, -0.7, 1.1, 0.5, 0.2, -0.4, 0.9, 0.6, -0.8];
    let mut dx = [0.0; 9];
    d_triple(&x, &mut dx, 1.0);
    let fdx = fd_grad(|y: &[f64]| triple(&y.try_into().unwrap()), &x, 1e-6);
    c.close_all("d triple product", &dx, &fdx, 1e-6);
    c.finish()
}
