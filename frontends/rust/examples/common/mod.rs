//! Shared helpers of the examples: central finite differences and a pass/fail tally.
#![allow(dead_code)]

pub struct Checker {
    name: &'static str,
    checks: usize,
    failures: usize,
}

impl Checker {
    pub fn new(name: &'static str) -> Self {
        Checker { name, checks: 0, failures: 0 }
    }

    /// |got - want| <= tol * max(1, |want|)
    pub fn close(&mut self, what: &str, got: f64, want: f64, tol: f64) {
        self.checks += 1;
        let ok = got.is_finite() && (got - want).abs() <= tol * want.abs().max(1.0);
        if !ok {
            self.failures += 1;
        }
        println!("{} {:<44} got {:>+.10e}  want {:>+.10e}", if ok { "ok  " } else { "FAIL" }, what, got, want);
    }

    pub fn close_all(&mut self, what: &str, got: &[f64], want: &[f64], tol: f64) {
        assert_eq!(got.len(), want.len());
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            self.close(&format!("{what}[{i}]"), *g, *w, tol);
        }
    }

    /// Exits the process: status 0 when every check passed, 1 otherwise.
    pub fn finish(self) -> ! {
        println!("{}: {} checks, {} failed", self.name, self.checks, self.failures);
        std::process::exit(if self.failures == 0 && self.checks > 0 { 0 } else { 1 })
    }
}

/// Central difference of a scalar function of one variable.
pub fn fd1(f: impl Fn(f64) -> f64, x: f64, h: f64) -> f64 {
    (f(x + h) - f(x - h)) / (2.0 * h)
}

/// Central-difference gradient of f: R^n -> R.
pub fn fd_grad(f: impl Fn(&[f64]) -> f64, x: &[f64], h: f64) -> Vec<f64> {
    let mut xp = x.to_vec();
    (0..x.len())
        .map(|i| {
            let xi = xp[i];
            xp[i] = xi + h;
            let fp = f(&xp);
            xp[i] = xi - h;
            let fm = f(&xp);
            xp[i] = xi;
            (fp - fm) / (2.0 * h)
        })
        .collect()
}

/// Central-difference directional derivative of f: R^n -> R^m along v.
pub fn fd_jvp(f: impl Fn(&[f64]) -> Vec<f64>, x: &[f64], v: &[f64], h: f64) -> Vec<f64> {
    let xp: Vec<f64> = x.iter().zip(v).map(|(a, b)| a + h * b).collect();
    let xm: Vec<f64> = x.iter().zip(v).map(|(a, b)| a - h * b).collect();
    f(&xp).iter().zip(f(&xm)).map(|(p, m)| (p - m) / (2.0 * h)).collect()
}

pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Deterministic pseudo-random numbers in [-1, 1).
pub struct Lcg(pub u64);
impl Lcg {
    pub fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
    pub fn vec(&mut self, n: usize) -> Vec<f64> {
        (0..n).map(|_| self.next()).collect()
    }
}
