//! Heap blocks allocated inside a differentiated function that outlive it: a `&mut Vec<f64>`
//! the caller passes with its shadow is grown by `push` (its buffer reallocated, perhaps from
//! empty), and a layer keeps a new `Vec` of activations in a struct field. The shadows of those
//! blocks must stay with the caller's shadow objects: their gradients are read after the call,
//! a second call must get its own shadow blocks, and dropping them must not double free.
//! A Vec that already holds values and is reallocated inside the call (no room reserved) has
//! the gradient of its old contents moved to the new shadow block, where the caller reads it;
//! so does a grid whose rows are replaced one by one.
mod common;
use common::*;

pub struct Layer {
    pub w: Vec<f64>,
    pub cache: Vec<f64>,
}

synthase::autodiff! {
    /// Appends tanh(x_i * s) to `hist` and returns the sum of squares of everything in it.
    #[autodiff_reverse(d_append, Duplicated, Duplicated, Active)]
    fn append(hist: &mut Vec<f64>, x: &[f64]) -> f64 {
        for v in x {
            hist.push((v * 1.5).tanh());
        }
        hist.iter().map(|h| h * h).sum()
    }
}

synthase::autodiff! {
    /// Keeps its activations (a fresh Vec) in the layer: the old cache is dropped in the call.
    #[autodiff_reverse(d_forward, Duplicated, Duplicated, Active)]
    fn forward(layer: &mut Layer, x: &[f64]) -> f64 {
        let act: Vec<f64> = layer.w.iter().zip(x).map(|(w, x)| (w * x).sin()).collect();
        let s = act.iter().sum::<f64>();
        layer.cache = act;
        s * s
    }
}

synthase::autodiff! {
    /// Replaces the caller's Vec with a new one each step (`*u = next`): the old buffer is
    /// dropped in the call, and the gradient of the values passed lands in the caller's shadow.
    #[autodiff_reverse(d_relax, Duplicated, Active)]
    fn relax(u: &mut Vec<f64>) -> f64 {
        for _ in 0..3 {
            let n = u.len();
            let next: Vec<f64> = (0..n).map(|i| u[i] * 0.5 + u[(i + 1) % n] * 0.3 + 0.1 * u[i] * u[i]).collect();
            *u = next;
        }
        u.iter().enumerate().map(|(i, v)| v * v * (i as f64 + 1.0)).sum()
    }
}

synthase::autodiff! {
    /// Replaces the caller's grid with one built in the call (`*g = next`).
    #[autodiff_reverse(d_regrid, Duplicated, Active)]
    fn regrid(g: &mut Vec<Vec<f64>>) -> f64 {
        let (r, c) = (g.len(), g[0].len());
        let mut next = vec![vec![0.0; c]; r];
        for i in 0..r {
            for j in 0..c {
                next[i][j] = g[i][j] * g[(i + 1) % r][(j + 1) % c];
            }
        }
        *g = next;
        let mut t = 0.0;
        for i in 0..r {
            for j in 0..c {
                t += g[i][j] * (i + j + 1) as f64;
            }
        }
        t
    }
}

synthase::autodiff! {
    /// Gives the caller's rows new Vecs one by one, the outer Vec kept (`*r = nr`, `g[i] = nr`,
    /// `mem::swap`): the gradient of the values passed lands in the caller's shadow rows.
    #[autodiff_reverse(d_rerow, Duplicated, Const, Active)]
    fn rerow(g: &mut Vec<Vec<f64>>, kind: usize) -> f64 {
        for _ in 0..2 {
            if kind == 0 {
                for r in g.iter_mut() {
                    let nr: Vec<f64> = r.iter().map(|x| x.sin() + 0.5 * x).collect();
                    *r = nr;
                }
            } else {
                for i in 0..g.len() {
                    let mut nr: Vec<f64> = g[i].iter().map(|x| x * x * 0.7 + 0.1).collect();
                    if kind == 1 {
                        g[i] = nr;
                    } else {
                        std::mem::swap(&mut g[i], &mut nr);
                    }
                }
            }
        }
        let mut t = 0.0;
        for (i, r) in g.iter().enumerate() {
            for (j, v) in r.iter().enumerate() {
                t += v * v * (i + j + 1) as f64;
            }
        }
        t
    }
}

fn append_value(h0: &[f64], x: &[f64]) -> f64 {
    let mut h = h0.to_vec();
    append(&mut h, x)
}

fn main() {
    let mut c = Checker::new("escaping_vecs");
    let mut rng = Lcg(5);
    for (n0, n, reserve) in [(0usize, 3usize, true), (2, 5, true), (7, 9, true), (2, 5, false), (7, 9, false), (1, 40, false)] {
        let h0 = rng.vec(n0);
        let x = rng.vec(n);
        // Room reserved up front (no reallocation of the old contents), grown from empty, or
        // exactly full so that the first push reallocates the old contents (several times).
        let cap = if n0 > 0 && reserve { n0 + n } else { n0 };
        let mut hist = Vec::with_capacity(cap);
        hist.extend_from_slice(&h0);
        let mut dhist = Vec::with_capacity(cap);
        dhist.resize(n0, 0.0);
        let mut dx = vec![0.0; n];
        let value = d_append(&mut hist, &mut dhist, &x, &mut dx, 1.0);
        c.close(&format!("n0={n0} reserve={reserve} value"), value, append_value(&h0, &x), 1e-12);
        c.close(&format!("n0={n0} reserve={reserve} grown length"), hist.len() as f64, (n0 + n) as f64, 0.0);
        let fdx = fd_grad(|x: &[f64]| append_value(&h0, x), &x, 1e-6);
        c.close_all(&format!("n0={n0} reserve={reserve} d/dx"), &dx, &fdx, 1e-6);
        let fdh = fd_grad(|h: &[f64]| append_value(h, &x), &h0, 1e-6);
        c.close_all(&format!("n0={n0} reserve={reserve} d/dhist (old part)"), &dhist[..n0], &fdh, 1e-6);
        // The appended part's shadow is the caller's now: it is writable and keeps its values.
        for (k, d) in dhist.iter_mut().enumerate() {
            *d = k as f64;
        }
        let kept: f64 = dhist.iter().sum();
        c.close(&format!("n0={n0} reserve={reserve} shadow kept"), kept, ((n0 + n) * (n0 + n - 1) / 2) as f64, 0.0);
    }

    let u0 = rng.vec(5);
    let mut u = u0.clone();
    let mut du = vec![0.0; 5];
    let value = d_relax(&mut u, &mut du, 1.0);
    c.close("relax value", value, relax(&mut u0.clone()), 1e-12);
    let fdu = fd_grad(|v: &[f64]| relax(&mut v.to_vec()), &u0, 1e-6);
    c.close_all("relax d/du (Vec replaced in the call)", &du, &fdu, 1e-6);

    let g0 = vec![rng.vec(3), rng.vec(3)];
    let mut g = g0.clone();
    let mut dg = vec![vec![0.0; 3]; 2];
    d_regrid(&mut g, &mut dg, 1.0);
    let flat: Vec<f64> = g0.iter().flatten().cloned().collect();
    let fdg = fd_grad(|x: &[f64]| regrid(&mut vec![x[0..3].to_vec(), x[3..6].to_vec()]), &flat, 1e-6);
    // Read through the rows' pointers: in a debug build the new rows' shadow lengths stay 0.
    let got: Vec<f64> = dg.iter().flat_map(|row| unsafe { std::slice::from_raw_parts(row.as_ptr(), 3) }.to_vec()).collect();
    c.close_all("regrid d/dg (rows made in the call)", &got, &fdg, 1e-6);
    if !cfg!(debug_assertions) {
        c.close("regrid shadow row length", dg[1].len() as f64, 3.0, 0.0);
    }

    for kind in 0..3 {
        let g0 = vec![rng.vec(3), rng.vec(2), rng.vec(4)];
        let mut g = g0.clone();
        let mut dg: Vec<Vec<f64>> = g0.iter().map(|r| vec![0.0; r.len()]).collect();
        d_rerow(&mut g, &mut dg, kind, 1.0);
        let flat: Vec<f64> = g0.iter().flatten().cloned().collect();
        let split = |x: &[f64]| vec![x[0..3].to_vec(), x[3..5].to_vec(), x[5..9].to_vec()];
        let fdg = fd_grad(|x: &[f64]| rerow(&mut split(x), kind), &flat, 1e-6);
        let got: Vec<f64> = dg.iter().flatten().cloned().collect();
        c.close_all(&format!("rerow kind {kind} d/dg (rows replaced one by one)"), &got, &fdg, 1e-6);
    }

    let n = 6;
    let x = rng.vec(n);
    let mut layers = Vec::new();
    let mut shadows = Vec::new();
    for call in 0..2 {
        let w = rng.vec(n);
        let mut layer = Layer { w: w.clone(), cache: vec![9.0; 2] };
        let mut dlayer = Layer { w: vec![0.0; n], cache: vec![0.0; 2] };
        let mut dx = vec![0.0; n];
        let value = d_forward(&mut layer, &mut dlayer, &x, &mut dx, 1.0);
        let f = |w: &[f64], x: &[f64]| {
            let mut l = Layer { w: w.to_vec(), cache: Vec::new() };
            forward(&mut l, x)
        };
        c.close(&format!("call {call} value"), value, f(&w, &x), 1e-12);
        c.close_all(&format!("call {call} d/dw"), &dlayer.w, &fd_grad(|w: &[f64]| f(w, &x), &w, 1e-6), 1e-6);
        c.close_all(&format!("call {call} d/dx"), &dx, &fd_grad(|x: &[f64]| f(&w, x), &x, 1e-6), 1e-6);
        // The escaped shadow block is the caller's: writable, and kept; the shadow Vec moved in
        // as a whole has the new cache's length.
        c.close(&format!("call {call} shadow cache length"), dlayer.cache.len() as f64, n as f64, 0.0);
        for d in dlayer.cache.iter_mut() {
            *d = (call + 1) as f64;
        }
        layers.push(layer);
        shadows.push(dlayer);
    }
    // Both calls' escaped shadow buffers are distinct and keep what the caller wrote.
    c.close("distinct shadow caches", (shadows[0].cache.as_ptr() != shadows[1].cache.as_ptr()) as i32 as f64, 1.0, 0.0);
    let kept = |l: &Layer| l.cache.iter().sum::<f64>();
    c.close("first shadow cache kept", kept(&shadows[0]), n as f64, 0.0);
    c.close("second shadow cache kept", kept(&shadows[1]), 2.0 * n as f64, 0.0);
    drop(layers);
    drop(shadows);
    c.finish()
}
