//! A panic inside a derivative unwinds like one in the primal: `catch_unwind` catches it, `Drop`
//! guards of the caller run, and a panic in a spawned thread comes back from `join`.
mod common;
use common::*;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

synthase::autodiff! {
    #[autodiff_reverse(d_checked, Duplicated, Active)]
    #[autodiff_forward(t_checked, Dual, Dual)]
    fn checked(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for v in x {
            if *v < 0.0 {
                panic!("negative input {v}");
            }
            s += v.sqrt() * v;
        }
        s
    }
}

static DROPS: AtomicUsize = AtomicUsize::new(0);
struct Guard;
impl Drop for Guard {
    fn drop(&mut self) {
        DROPS.fetch_add(1, Ordering::SeqCst);
    }
}

fn main() {
    let mut c = Checker::new("panics");
    std::panic::set_hook(Box::new(|_| {})); // keep the expected panics quiet
    let good = [1.0, 2.0, 3.0];
    let bad = [1.0, -2.0, 3.0];
    for round in 0..3 {
        let r = catch_unwind(AssertUnwindSafe(|| {
            let _g = Guard;
            let mut dx = [0.0; 3];
            d_checked(&bad, &mut dx, 1.0)
        }));
        c.close(&format!("reverse panic caught (round {round})"), r.is_err() as i32 as f64, 1.0, 0.0);
        let r = catch_unwind(AssertUnwindSafe(|| {
            let _g = Guard;
            t_checked(&bad, &[1.0, 0.0, 0.0])
        }));
        c.close(&format!("forward panic caught (round {round})"), r.is_err() as i32 as f64, 1.0, 0.0);
    }
    c.close("drop guards run", DROPS.load(Ordering::SeqCst) as f64, 6.0, 0.0);
    let h = std::thread::spawn(move || {
        let mut dx = [0.0; 3];
        d_checked(&bad, &mut dx, 1.0)
    });
    c.close("thread panic returned by join", h.join().is_err() as i32 as f64, 1.0, 0.0);
    // A derivative that unwinds gives its tape buffer back to the thread's arena (a cleanup pad
    // in the generated code): 1000 panicking gradients over 20000 values (a tape far beyond the
    // frame buffer, grown on the heap each time if it were lost) leave the memory where it was.
    let mut big = vec![0.5; 20000];
    *big.last_mut().unwrap() = -1.0;
    let mut dbig = vec![0.0; big.len()];
    let mut rss = Vec::new();
    for i in 0..1000 {
        let r = catch_unwind(AssertUnwindSafe(|| d_checked(&big, &mut dbig, 1.0)));
        assert!(r.is_err());
        if i == 10 || i == 999 { rss.push(rss_kib()); }
    }
    println!("resident memory after 10 and 1000 unwinding gradients: {} KiB, {} KiB", rss[0], rss[1]);
    c.close("no tape leak: growth over 990 unwinding gradients (MiB)", ((rss[1] - rss[0]).max(0) / 1024) as f64, 0.0, 4.0);
    // the tape arena is usable after an unwind
    let mut dx = [0.0; 3];
    let y = d_checked(&good, &mut dx, 1.0);
    c.close("value after panics", y, checked(&good), 1e-14);
    c.close_all("gradient after panics", &dx, &fd_grad(|x| checked(x), &good, 1e-6), 1e-6);
    c.finish()
}

/// Resident set size of this process, from /proc (Linux).
fn rss_kib() -> i64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines().find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1)).and_then(|v| v.parse().ok()).unwrap_or(0)
}
