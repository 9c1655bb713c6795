//! A Rust struct's method differentiated through a free function: the gradient with respect to
//! the positions (a slice) and to the struct's own parameters (its shadow is a second struct).
mod common;
use common::*;

/// A chain of springs between consecutive points on a line, with a pinned first point.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub struct Chain {
    pub stiffness: f64,
    pub rest_length: f64,
    pub gravity: f64,
}

impl Chain {
    /// Elastic plus potential energy of the points `x`.
    pub fn energy(&self, x: &[f64]) -> f64 {
        let mut e = 0.0;
        for i in 1..x.len() {
            let stretch = (x[i] - x[i - 1]).abs() - self.rest_length;
            e += 0.5 * self.stiffness * stretch * stretch;
            e += self.gravity * x[i];
        }
        e
    }
}

synthase::autodiff! {
    /// The free function the derivative is taken of; it just calls the method.
    #[autodiff_reverse(d_energy, Duplicated, Duplicated, Active)]
    #[autodiff_forward(t_energy, Const, Dual, DualOnly)]
    fn chain_energy(chain: &Chain, x: &[f64]) -> f64 {
        chain.energy(x)
    }
}

fn main() {
    let mut c = Checker::new("struct_method");
    let chain = Chain { stiffness: 3.0, rest_length: 0.5, gravity: 0.2 };
    let x = [0.0, 0.7, 1.1, 1.9, 2.2];

    let mut dchain = Chain::default();
    let mut dx = [0.0; 5];
    let e = d_energy(&chain, &mut dchain, &x, &mut dx, 1.0);
    c.close("energy", e, chain.energy(&x), 1e-14);
    c.close_all("dE/dx", &dx, &fd_grad(|x| chain.energy(x), &x, 1e-6), 1e-6);
    let h = 1e-6;
    c.close("dE/dstiffness", dchain.stiffness,
            fd1(|k| Chain { stiffness: k, ..chain }.energy(&x), chain.stiffness, h), 1e-6);
    c.close("dE/drest_length", dchain.rest_length,
            fd1(|l| Chain { rest_length: l, ..chain }.energy(&x), chain.rest_length, h), 1e-6);
    c.close("dE/dgravity", dchain.gravity,
            fd1(|g| Chain { gravity: g, ..chain }.energy(&x), chain.gravity, h), 1e-6);

    // Forward mode: directional derivative along v equals <dE/dx, v>.
    let v = [0.1, -0.2, 0.3, 0.05, -0.4];
    let t = t_energy(&chain, &x, &v);
    c.close("forward <dE/dx, v>", t, dot(&dx, &v), 1e-10);
    c.finish()
}
