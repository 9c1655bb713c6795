//! Reverse mode called in a loop and from several threads at once: every thread keeps its own
//! tape buffer between calls, freed when the thread exits (or by `synthase::release_tape()`).
//!
//!     cargo run --example tape_threads
mod common;
use common::*;

synthase::autodiff! {
    /// sum_i sin(x_i x_{i+1}): every product goes on the tape (8 bytes per step).
    #[autodiff_reverse(d_pairs, Duplicated, Active)]
    fn pairs(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() - 1 {
            s += (x[i] * x[i + 1]).sin();
        }
        s
    }
}

/// The gradient by hand.
fn pairs_grad(x: &[f64]) -> Vec<f64> {
    let n = x.len();
    (0..n)
        .map(|i| {
            let mut g = 0.0;
            if i + 1 < n {
                g += (x[i] * x[i + 1]).cos() * x[i + 1];
            }
            if i > 0 {
                g += (x[i - 1] * x[i]).cos() * x[i - 1];
            }
            g
        })
        .collect()
}

/// Largest relative error of the reverse-mode gradient at n points against the hand-written one,
/// and against central differences at three entries.
fn worst_error(n: usize, phase: f64) -> (f64, f64) {
    let x: Vec<f64> = (0..n).map(|i| 0.75 + 0.25 * (0.37 * i as f64 + phase).sin()).collect();
    let mut dx = vec![0.0; n];
    d_pairs(&x, &mut dx, 1.0);
    let want = pairs_grad(&x);
    let hand = dx.iter().zip(&want).map(|(g, w)| (g - w).abs() / w.abs().max(1.0)).fold(0.0, f64::max);
    let mut fd = 0.0f64;
    for i in [0, n / 2, n - 1] {
        let f = |xi: f64| {
            let mut y = x.clone();
            y[i] = xi;
            pairs(&y)
        };
        let d = fd1(f, x[i], 1e-4);
        fd = fd.max((dx[i] - d).abs() / d.abs().max(1.0));
    }
    (hand, fd)
}

fn main() {
    let mut c = Checker::new("tape_threads");
    // A loop with changing sizes: the buffer grows between calls and is otherwise reused.
    for (k, n) in [10usize, 100_000, 3000, 250_000, 50].into_iter().enumerate() {
        let (hand, fd) = worst_error(n, k as f64);
        c.close(&format!("main thread, n={n}: worst error vs hand-written"), hand, 0.0, 1e-12);
        c.close(&format!("main thread, n={n}: worst error vs FD"), fd, 0.0, 1e-5);
    }
    synthase::release_tape();
    let (hand, _) = worst_error(20_000, 0.5);
    c.close("after release_tape: worst error vs hand-written", hand, 0.0, 1e-12);
    // Four threads at once, each growing and reusing its own buffer.
    let workers: Vec<_> = (0..4)
        .map(|t| {
            std::thread::spawn(move || {
                let mut worst = (0.0f64, 0.0f64);
                for r in 0..5 {
                    let (h, f) = worst_error(2000 + 37_000 * ((t + r) % 4), t as f64 + r as f64);
                    worst = (worst.0.max(h), worst.1.max(f));
                }
                if t == 1 {
                    synthase::release_tape();
                }
                worst
            })
        })
        .collect();
    for (t, w) in workers.into_iter().enumerate() {
        let (h, f) = w.join().unwrap();
        c.close(&format!("thread {t}: worst error vs hand-written"), h, 0.0, 1e-12);
        c.close(&format!("thread {t}: worst error vs FD"), f, 0.0, 1e-5);
    }
    c.finish();
}
