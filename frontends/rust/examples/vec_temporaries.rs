//! Heap temporaries inside differentiated Rust code: `vec![0.0; n]` (Rust's zeroed allocator),
//! `to_vec()` and `collect()` (its allocator, then a copy), `push` growing a Vec (its realloc),
//! each dropped before returning (its dealloc). Both modes against finite differences.
mod common;
use common::*;

synthase::autodiff! {
    #[autodiff_reverse(d_temps, Duplicated, Active)]
    #[autodiff_forward(t_temps, Dual, Dual)]
    #[allow(clippy::needless_range_loop)]
    fn temps(w: &[f64]) -> f64 {
        let n = w.len();
        let mut v = vec![0.0; n];
        for i in 0..n {
            v[i] = w[i] * w[(i + 1) % n];
        }
        let c = w.to_vec();
        let s: Vec<f64> = w.iter().map(|x| x.sin()).collect();
        let mut g = Vec::new();
        for i in 0..n {
            g.push(v[i] * s[i]);
        }
        let mut acc = 0.0;
        for i in 0..n {
            acc += g[i] * c[i] + v[i] * v[i];
        }
        acc
    }
}

synthase::autodiff! {
    /// Single precision: iterator chains and a Vec grown from an odd capacity.
    #[autodiff_reverse(d_temps32, Duplicated, Active)]
    fn temps32(w: &[f32]) -> f32 {
        let sq: Vec<f32> = w.iter().map(|x| x * x).collect();
        let c = sq.to_vec();
        // Grown from an odd capacity: the realloc moves 5 floats' adjoints back, not 2.5 doubles.
        let mut g: Vec<f32> = Vec::with_capacity(5);
        for (i, x) in w.iter().enumerate() {
            g.push(x * c[i]);
        }
        sq.iter().zip(c.iter().rev()).map(|(a, b)| a * b.cos()).sum::<f32>() + g.iter().sum::<f32>()
    }
}

synthase::autodiff! {
    /// Addresses kept as integers in a Vec<usize> (grown by push, so its buffer is moved) and
    /// turned back into references: the memory they point to keeps its derivative.
    #[autodiff_reverse(d_addresses, Duplicated, Active)]
    #[autodiff_forward(t_addresses, Dual, Dual)]
    fn addresses(w: &[f64]) -> f64 {
        let n = w.len();
        let mut t: Vec<usize> = Vec::new();
        for i in 0..n {
            t.push(&w[(i * 3) % n] as *const f64 as usize);
        }
        let mut acc = 0.0;
        for (i, &a) in t.iter().enumerate() {
            let v = unsafe { *(a as *const f64) };
            acc += v * v * (1.0 + 0.1 * i as f64);
        }
        acc
    }
}

fn main() {
    let mut c = Checker::new("vec_temporaries");
    let mut rng = Lcg(11);
    for n in [1usize, 5, 13] {
        let w = rng.vec(n);
        let mut dw = vec![0.0; n];
        let value = d_temps(&w, &mut dw, 1.0);
        c.close(&format!("n={n} value"), value, temps(&w), 1e-12);
        let fd = fd_grad(temps, &w, 1e-6);
        c.close_all(&format!("n={n} reverse dtemps/dw"), &dw, &fd, 1e-6);
        let v = rng.vec(n);
        let (value_f, jv) = t_temps(&w, &v);
        c.close(&format!("n={n} forward value"), value_f, temps(&w), 1e-12);
        c.close(&format!("n={n} forward vs finite differences"), jv, dot(&fd, &v), 1e-6);
        c.close(&format!("n={n} forward vs reverse"), jv, dot(&dw, &v), 1e-12);

        let w32: Vec<f32> = w.iter().map(|&x| x as f32).collect();
        let mut dw32 = vec![0.0f32; n];
        d_temps32(&w32, &mut dw32, 1.0);
        let fd32 = fd_grad(|x| {
            let x: Vec<f32> = x.iter().map(|&v| v as f32).collect();
            temps32(&x) as f64
        }, &w, 1e-2);
        let got: Vec<f64> = dw32.iter().map(|&v| v as f64).collect();
        c.close_all(&format!("n={n} f32 reverse"), &got, &fd32, 2e-3);

        let mut da = vec![0.0; n];
        d_addresses(&w, &mut da, 1.0);
        let fda = fd_grad(addresses, &w, 1e-6);
        c.close_all(&format!("n={n} address table reverse"), &da, &fda, 1e-6);
        let (_, ja) = t_addresses(&w, &v);
        c.close(&format!("n={n} address table forward vs reverse"), ja, dot(&da, &v), 1e-12);
    }
    c.finish()
}
