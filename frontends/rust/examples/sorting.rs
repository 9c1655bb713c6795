//! Float data moved by the standard library's sort, swap and reverse inside differentiated code:
//! `to_vec()` then `sort_by` moves elements as integers and through `ptr::copy`; the derivative
//! must follow the permutation in both modes. Checked against finite differences (away from ties,
//! where the sorted order is locally constant). `sort_unstable_by` on more than 20 elements runs
//! a sorting network and a branchless merge into a stack scratch buffer, moving the floats as
//! `i64` through selected pointers and copying the buffer back with a run-time length.
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

synthase::autodiff! {
    #[autodiff_reverse(d_ranked, Duplicated, Active)]
    #[autodiff_forward(t_ranked, Dual, Dual)]
    fn ranked(w: &[f64]) -> f64 {
        let mut v = w.to_vec();
        v.sort_unstable_by(|a, b| a.partial_cmp(b).unwrap());
        v.iter().enumerate().map(|(i, x)| (i as f64 + 1.0) * x * x).sum()
    }

    // Sorting the caller's own slice in place: the shadow is permuted with it.
    #[autodiff_reverse(d_trimmed, Duplicated, Active)]
    fn trimmed(w: &mut [f64]) -> f64 {
        w.sort_unstable_by(|a, b| b.total_cmp(a));
        let k = w.len() / 4;
        w[k..w.len() - k].iter().map(|x| x.exp()).sum::<f64>() + w[0]
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
    for n in [4usize, 19, 21, 32, 33, 200, 1000] {
        let w = rng.vec(n);
        let mut dw = vec![0.0; n];
        let value = d_ranked(&w, &mut dw, 1.0);
        c.close(&format!("unstable n={n} value"), value, ranked(&w), 1e-12);
        // Away from ties the sort is a fixed permutation: d/dw_i = 2 (rank_i + 1) w_i.
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| w[a].partial_cmp(&w[b]).unwrap());
        let mut want = vec![0.0; n];
        for (rank, &i) in order.iter().enumerate() {
            want[i] = 2.0 * (rank as f64 + 1.0) * w[i];
        }
        c.close_all(&format!("unstable n={n} reverse d/dw"), &dw, &want, 1e-12);
        let v = rng.vec(n);
        let (_, jv) = t_ranked(&w, &v);
        c.close(&format!("unstable n={n} forward vs reverse"), jv, dot(&dw, &v), 1e-9);
        if n <= 33 {
            let fd = fd_grad(ranked, &w, 1e-7);
            c.close_all(&format!("unstable n={n} reverse vs finite differences"), &dw, &fd, 1e-5);
        }
    }
    for n in [8usize, 25, 64] {
        let w = rng.vec(n);
        let mut x = w.clone();
        let mut dx = vec![0.0; n];
        d_trimmed(&mut x, &mut dx, 1.0);
        let fd = fd_grad(|p: &[f64]| trimmed(&mut p.to_vec()), &w, 1e-7);
        c.close_all(&format!("in-place n={n} reverse vs finite differences"), &dx, &fd, 1e-5);
    }
    c.finish()
}
