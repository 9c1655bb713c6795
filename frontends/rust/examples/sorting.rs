//! Float data moved by the standard library's sort, swap and reverse inside differentiated code:
//! `to_vec()` then `sort_by` moves elements as integers and through `ptr::copy`; the derivative
//! must follow the permutation in both modes. Checked against finite differences (away from ties,
//! where the sorted order is locally constant).
mod common;
use common::*;

synthase::autodiff! {
    #[autodiff_reverse(d_sorted, Duplicated, Active)]
    #[autodiff_forward(t_sorted, Dual, Dual)]
    fn sorted(w: &[f64]) -> f64 {
        let mut v = w.to_vec();
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let n = v.len();
        if n > 1 {
            v.swap(0, n - 1);
        }
        v.reverse();
        let mut acc = 0.0;
        for (i, x) in v.iter().enumerate() {
            acc += (i as f64 + 1.0) * x * x + x.sin();
        }
        acc
    }
}

fn main() {
    let mut c = Checker::new("sorting");
    let mut rng = Lcg(5);
    for n in [1usize, 4, 9, 33] {
        let w = rng.vec(n);
        let mut dw = vec![0.0; n];
        let value = d_sorted(&w, &mut dw, 1.0);
        c.close(&format!("n={n} value"), value, sorted(&w), 1e-12);
        let fd = fd_grad(sorted, &w, 1e-7);
        c.close_all(&format!("n={n} reverse d/dw"), &dw, &fd, 1e-6);
        let v = rng.vec(n);
        let (_, jv) = t_sorted(&w, &v);
        c.close(&format!("n={n} forward vs finite differences"), jv, dot(&fd, &v), 1e-6);
        c.close(&format!("n={n} forward vs reverse"), jv, dot(&dw, &v), 1e-12);
    }
    c.finish()
}
