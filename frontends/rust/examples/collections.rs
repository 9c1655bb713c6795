//! Standard collections inside differentiated Rust code: a `HashMap` (whose `RandomState` seeds
//! itself through getrandom/syscall/read, all inactive), a `VecDeque` holding active
//! values, and `Rc<RefCell<Vec<f64>>>` filled through a boxed closure. Both modes against finite
//! differences. `sums` walks a HashMap's values and entries: hashbrown's iterator scans control
//! groups (`if mask == 0 { if items == 0 break; next group }`), a loop whose header is entered
//! again along a path that skips the block after it (the reverse sweep read the tape out of step
//! in release builds and crashed). `ordered` bins into a `BTreeMap`, whose leaf node keeps its u16
//! length beside its parent pointer (the length's increment was taken for a rebuilt address in
//! debug builds).
mod common;
use common::*;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::rc::Rc;

synthase::autodiff! {
    #[autodiff_reverse(d_binned, Duplicated, Active)]
    #[autodiff_forward(t_binned, Dual, Dual)]
    fn binned(v: &[f64]) -> f64 {
        let mut h: HashMap<usize, f64> = HashMap::new();
        for (i, x) in v.iter().enumerate() {
            *h.entry(i % 3).or_insert(0.0) += x * x;
        }
        let mut keys: Vec<_> = h.keys().cloned().collect();
        keys.sort();
        let b: Vec<f64> = v.iter().map(|x| x.sin()).rev().collect();
        let mut q: VecDeque<f64> = VecDeque::new();
        for x in v {
            q.push_front(x * 0.5);
            if q.len() > 2 {
                q.pop_back();
            }
        }
        keys.iter().map(|k| h[k].sin()).sum::<f64>() + b.iter().enumerate().map(|(i, s)| s * (i as f64 + 1.0)).sum::<f64>()
            + q.iter().product::<f64>()
    }
}

synthase::autodiff! {
    #[autodiff_reverse(d_sums, Duplicated, Active)]
    #[autodiff_forward(t_sums, Dual, Dual)]
    fn sums(v: &[f64]) -> f64 {
        let mut h: HashMap<usize, f64> = HashMap::with_capacity(8);
        for (i, x) in v.iter().enumerate() {
            *h.entry(i % 3).or_insert(0.0) += x * x;
        }
        let mut all: HashMap<usize, f64> = HashMap::new();
        for (i, x) in v.iter().enumerate() {
            all.insert(i, x.sin() + 1.5);
        }
        let mut s = 0.0;
        for (k, x) in all.iter() {
            s += x.sqrt() * (*k as f64 + 1.0);
        }
        h.values().map(|x| (x + 1.0).sqrt()).sum::<f64>() + s
    }
}

synthase::autodiff! {
    #[autodiff_reverse(d_ordered, Duplicated, Active)]
    #[autodiff_forward(t_ordered, Dual, Dual)]
    fn ordered(v: &[f64]) -> f64 {
        let mut m = BTreeMap::new();
        for (i, x) in v.iter().enumerate() {
            *m.entry(i % 4).or_insert(0.0) += x.sin();
        }
        m.values().enumerate().map(|(k, x)| x * x * (k as f64 + 1.0)).sum()
    }
}

synthase::autodiff! {
    #[autodiff_reverse(d_shared, Duplicated, Active)]
    fn shared(x: &[f64]) -> f64 {
        let acc = Rc::new(RefCell::new(Vec::<f64>::new()));
        let a2 = acc.clone();
        let push: Box<dyn Fn(f64)> = Box::new(move |v| a2.borrow_mut().push(v.exp()));
        for &v in x.iter().rev() {
            push(v * 0.5);
        }
        let s: f64 = acc.borrow().iter().enumerate().map(|(i, v)| v * (i as f64 + 1.0)).sum();
        s
    }
}

fn main() {
    let mut c = Checker::new("collections");
    let mut rng = Lcg(5);
    for n in [1usize, 4, 9] {
        let w = rng.vec(n);
        let mut dw = vec![0.0; n];
        let value = d_binned(&w, &mut dw, 1.0);
        c.close(&format!("n={n} value"), value, binned(&w), 1e-12);
        let fd = fd_grad(binned, &w, 1e-6);
        c.close_all(&format!("n={n} reverse dbinned/dw"), &dw, &fd, 1e-6);
        let v = rng.vec(n);
        let (_, jv) = t_binned(&w, &v);
        c.close(&format!("n={n} forward vs reverse"), jv, dot(&dw, &v), 1e-12);

        let mut du = vec![0.0; n];
        let su = d_sums(&w, &mut du, 1.0);
        c.close(&format!("n={n} HashMap sums value"), su, sums(&w), 1e-12);
        c.close_all(&format!("n={n} HashMap sums reverse"), &du, &fd_grad(sums, &w, 1e-6), 1e-6);
        let (_, ju) = t_sums(&w, &v);
        c.close(&format!("n={n} HashMap sums forward vs reverse"), ju, dot(&du, &v), 1e-12);

        let mut dr = vec![0.0; n];
        let so = d_ordered(&w, &mut dr, 1.0);
        c.close(&format!("n={n} BTreeMap value"), so, ordered(&w), 1e-12);
        c.close_all(&format!("n={n} BTreeMap reverse"), &dr, &fd_grad(ordered, &w, 1e-6), 1e-6);
        let (_, jo) = t_ordered(&w, &v);
        c.close(&format!("n={n} BTreeMap forward vs reverse"), jo, dot(&dr, &v), 1e-12);

        let mut ds = vec![0.0; n];
        d_shared(&w, &mut ds, 1.0);
        c.close_all(&format!("n={n} Rc<RefCell> reverse"), &ds, &fd_grad(shared, &w, 1e-6), 1e-6);
    }
    c.finish()
}
