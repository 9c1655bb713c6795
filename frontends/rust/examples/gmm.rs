//! The GMM objective of the benchmark suite (bench/objectives/gmm.c), ported to Rust: the negative
//! log-likelihood of a Gaussian mixture with a Wishart prior, K components in d dimensions over n
//! points, with `Vec` temporaries. Without arguments it checks the gradient (reverse mode) against
//! central finite differences and forward mode on a small problem. `gmm --bench SIZE` (SIZE 0 or
//! 1, the sizes of the C benchmark) times the primal and the gradient and prints a table row for
//! `make bench` plus a `check:` line that bench/rust/gmm_c.c prints too for the same data.
mod common;
use common::*;
use std::time::Instant;

const LN_PI: f64 = 1.1447298858494002; // ln(π)

fn logsumexp(v: &[f64]) -> f64 {
    let mx = v.iter().fold(v[0], |m, &x| if x > m { x } else { m });
    let s: f64 = v.iter().map(|&x| (x - mx).exp()).sum();
    s.ln() + mx
}

/// out = Q xc, Q = diag(exp(logdiag)) + strict lower triangle L stored by columns.
fn q_times(d: usize, icf: &[f64], xc: &[f64], out: &mut [f64]) {
    let (logdiag, mut l) = icf.split_at(d);
    for ((o, q), x) in out.iter_mut().zip(logdiag).zip(xc) {
        *o = q.exp() * x;
    }
    for c in 0..d {
        let (col, rest) = l.split_at(d - c - 1);
        for (o, lv) in out[c + 1..].iter_mut().zip(col) {
            *o += lv * xc[c];
        }
        l = rest;
    }
}

/// ln Γ(a) by Lanczos (g = 7, 9 terms), for a > 0.5: the prior's constant, not differentiated.
fn ln_gamma(a: f64) -> f64 {
    const C: [f64; 9] = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
        -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
    let x = a - 1.0;
    let mut s = C[0];
    for (i, c) in C.iter().enumerate().skip(1) {
        s += c / (x + i as f64);
    }
    let t = x + 7.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + s.ln()
}

fn log_gamma_distrib(a: f64, p: usize) -> f64 {
    let mut s = 0.25 * (p * (p - 1)) as f64 * LN_PI;
    for j in 1..=p {
        s += ln_gamma(a + 0.5 * (1.0 - j as f64));
    }
    s
}

pub struct Dims {
    pub d: usize,
    pub k: usize,
    pub n: usize,
    pub m: usize,
    pub gamma: f64,
}

synthase::autodiff! {
    // params = alphas (K), means (K d), icf (K d(d+1)/2); x = n points.
    #[autodiff_reverse(gmm_grad, Const, Duplicated, Const, Active)]
    #[autodiff_forward(gmm_tangent, Const, Dual, Const, DualOnly)]
    fn gmm(dm: &Dims, params: &[f64], x: &[f64]) -> f64 {
        let (d, k, n) = (dm.d, dm.k, dm.n);
        let tri = d * (d + 1) / 2;
        let alphas = &params[..k];
        let means = &params[k..k + k * d];
        let icf = &params[k + k * d..];
        let mut xc = vec![0.0; d];
        let mut qxc = vec![0.0; d];
        let mut main_term = vec![0.0; k];
        let mut sum_qs = vec![0.0; k];
        for c in 0..k {
            for j in 0..d {
                sum_qs[c] += icf[c * tri + j];
            }
        }
        let mut slse = 0.0;
        for xi in x.chunks_exact(d).take(n) {
            let comps = main_term.iter_mut().zip(alphas).zip(&sum_qs).zip(means.chunks_exact(d)).zip(icf.chunks_exact(tri));
            for ((((mt, a), sq_c), mean), icf_c) in comps {
                for ((e, xv), m) in xc.iter_mut().zip(xi).zip(mean) {
                    *e = xv - m;
                }
                q_times(d, icf_c, &xc, &mut qxc);
                let sq: f64 = qxc.iter().map(|v| v * v).sum();
                *mt = a + sq_c - 0.5 * sq;
            }
            slse += logsumexp(&main_term);
        }
        let mut prior = 0.0;
        for c in 0..k {
            let mut fro = 0.0;
            for j in 0..d {
                fro += (2.0 * icf[c * tri + j]).exp();
            }
            for j in d..tri {
                fro += icf[c * tri + j] * icf[c * tri + j];
            }
            prior += 0.5 * dm.gamma * dm.gamma * fro - dm.m as f64 * sum_qs[c];
        }
        let nn = (d + dm.m + 1) as f64;
        let cst = nn * d as f64 * (dm.gamma.ln() - 0.5 * 2f64.ln()) - log_gamma_distrib(0.5 * nn, d);
        -((n * d) as f64) * 0.5 * (2.0 * std::f64::consts::PI).ln() + slse - n as f64 * logsumexp(alphas) + prior
            - k as f64 * cst
    }
}

/// The data of bench/rust/gmm_c.c: the same generator, so both print the same `check:` line.
fn problem(size: usize) -> (Dims, Vec<f64>, Vec<f64>) {
    let (d, k, n) = [(2, 5, 200), (10, 25, 1000), (10, 50, 2000)][size];
    let dm = Dims { d, k, n, m: 0, gamma: 1.0 };
    let np = k * (1 + d + d * (d + 1) / 2);
    let mut r = Lcg(16);
    let params: Vec<f64> = (0..np).map(|i| r.next() * if i < k { 1.0 } else { 0.3 }).collect();
    let x = r.vec(n * d);
    (dm, params, x)
}

fn best_of(reps: usize, mut f: impl FnMut()) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..7 {
        let t0 = Instant::now();
        for _ in 0..reps {
            f();
        }
        best = best.min(t0.elapsed().as_secs_f64() / reps as f64);
    }
    best
}

fn bench(size: usize) {
    let (dm, params, x) = problem(size);
    let mut g = vec![0.0; params.len()];
    let reps = if size == 0 { 50 } else { 3 };
    let mut y = 0.0;
    let tp = best_of(reps, || y = std::hint::black_box(gmm(&dm, std::hint::black_box(&params), &x)));
    let mut v = 0.0;
    let tg = best_of(reps, || {
        g.iter_mut().for_each(|e| *e = 0.0);
        v = gmm_grad(&dm, std::hint::black_box(&params), &mut g, &x, 1.0);
    });
    let norm: f64 = g.iter().map(|e| e * e).sum::<f64>().sqrt();
    println!("| GMM (d={} K={} n={}) | Rust, synthase crate | {:.3} ms | {:.3} ms | {:.2} |",
             dm.d, dm.k, dm.n, 1e3 * tp, 1e3 * tg, tg / tp);
    assert!((y - v).abs() <= 1e-12 * y.abs().max(1.0), "the gradient call's primal differs");
    println!("check: primal {:.12e} gradient-norm {:.12e}", y, norm);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() > 1 && args[1] == "--bench" {
        bench(args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1));
        return;
    }
    let mut k = Checker::new("gmm");
    let (dm, params, x) = problem(0);
    let mut g = vec![0.0; params.len()];
    let v = gmm_grad(&dm, &params, &mut g, &x, 1.0);
    k.close("primal through the gradient call", v, gmm(&dm, &params, &x), 1e-13);
    let fd = fd_grad(|p| gmm(&dm, p, &x), &params, 1e-6);
    let worst = (0..g.len()).max_by(|&a, &b| (g[a] - fd[a]).abs().total_cmp(&(g[b] - fd[b]).abs())).unwrap();
    k.close(&format!("gradient vs FD, worst entry {worst} of {}", g.len()), g[worst], fd[worst], 1e-6);
    let mut r = Lcg(3);
    for t in 0..3 {
        let dir = r.vec(params.len());
        let tan = gmm_tangent(&dm, &params, &dir, &x);
        k.close(&format!("forward along a random direction = reverse ({t})"), tan, dot(&g, &dir), 1e-11);
    }
    k.finish()
}
