//! Reverse mode: the gradient of a least-squares loss over a slice of weights.
//!
//!     cargo run --example loss_grad        (with .cargo/config.toml pointing at Synthase.so)
mod common;
use common::*;

synthase::autodiff! {
    /// Mean squared error of the model y ≈ tanh(w·x + b) over `n` samples of `w.len()` features.
    #[autodiff_reverse(d_loss, Duplicated, Active, Const, Const, Active)]
    fn loss(w: &[f64], b: f64, xs: &[f64], ys: &[f64]) -> f64 {
        let k = w.len();
        let n = ys.len();
        let mut sum = 0.0;
        for i in 0..n {
            let row = &xs[i * k..(i + 1) * k];
            let mut z = b;
            for j in 0..k {
                z += w[j] * row[j];
            }
            let r = z.tanh() - ys[i];
            sum += r * r;
        }
        sum / n as f64
    }
}

synthase::autodiff! {
    /// The same in single precision, with only the gradient returned (ActiveOnly).
    #[autodiff_reverse(d_loss32, Duplicated, Const, Const, ActiveOnly)]
    fn loss32(w: &[f32], xs: &[f32], ys: &[f32]) -> f32 {
        let k = w.len();
        let mut sum = 0.0f32;
        for i in 0..ys.len() {
            let mut z = 0.0f32;
            for j in 0..k {
                z += w[j] * xs[i * k + j];
            }
            let r = z.tanh() - ys[i];
            sum += r * r;
        }
        sum / ys.len() as f32
    }
}

fn main() {
    let mut c = Checker::new("loss_grad");
    let mut rng = Lcg(42);
    let (k, n) = (5, 16);
    let w = rng.vec(k);
    let b = 0.3;
    let xs = rng.vec(k * n);
    let ys = rng.vec(n);

    let mut dw = vec![0.0; k];
    let (value, db) = d_loss(&w, &mut dw, b, &xs, &ys, 1.0);
    c.close("loss value", value, loss(&w, b, &xs, &ys), 1e-12);
    let fd_w = fd_grad(|w| loss(w, b, &xs, &ys), &w, 1e-6);
    c.close_all("dloss/dw", &dw, &fd_w, 1e-6);
    c.close("dloss/db", db, fd1(|b| loss(&w, b, &xs, &ys), b, 1e-6), 1e-6);

    // Gradients are accumulated into the shadow; the seed scales them.
    let (_, db2) = d_loss(&w, &mut dw, b, &xs, &ys, 0.5);
    let want: Vec<f64> = fd_w.iter().map(|g| 1.5 * g).collect();
    c.close_all("accumulated 1.5*dloss/dw", &dw, &want, 1e-6);
    c.close("seed 0.5 * dloss/db", db2, 0.5 * db, 1e-12);

    // f32
    let w32: Vec<f32> = w.iter().map(|&v| v as f32).collect();
    let xs32: Vec<f32> = xs.iter().map(|&v| v as f32).collect();
    let ys32: Vec<f32> = ys.iter().map(|&v| v as f32).collect();
    let mut dw32 = vec![0.0f32; k];
    let () = d_loss32(&w32, &mut dw32, &xs32, &ys32, 1.0);
    let fd32 = fd_grad(|w| {
        let w: Vec<f32> = w.iter().map(|&v| v as f32).collect();
        loss32(&w, &xs32, &ys32) as f64
    }, &w, 1e-2);
    let got: Vec<f64> = dw32.iter().map(|&v| v as f64).collect();
    c.close_all("f32 dloss/dw", &got, &fd32, 2e-3);
    c.finish()
}
