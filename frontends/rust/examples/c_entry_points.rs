//! The Enzyme C entry points called directly from Rust, without the `autodiff!` macro: the
//! markers are extern statics passed by value (`enzyme_dup`, not `&raw const enzyme_dup`). In the
//! dev profile rustc checks the address of every extern static it reads against null; the plugin
//! folds those checks so the markers, which are never defined, do not reach the linker.
mod common;
use common::*;
use std::ffi::c_void;

#[allow(non_upper_case_globals)]
extern "C" {
    static enzyme_dup: i32;
    static enzyme_const: i32;
    static enzyme_out: i32;
    fn __enzyme_autodiff(f: *const c_void, ...) -> f64;
    fn __enzyme_fwddiff(f: *const c_void, ...) -> f64;
}

/// f(x, v) = sum_i sin(x v_i) + v_i^2 x
extern "C" fn f(x: f64, v: *const f64, n: i32) -> f64 {
    let v = unsafe { std::slice::from_raw_parts(v, n as usize) };
    v.iter().map(|vi| (x * vi).sin() + vi * vi * x).sum()
}

fn f_of(x: f64, v: &[f64]) -> f64 {
    f(x, v.as_ptr(), v.len() as i32)
}

fn main() {
    let mut c = Checker::new("c_entry_points");
    let mut rng = Lcg(7);
    for _ in 0..3 {
        let x = rng.next();
        let v = rng.vec(4);
        let n = v.len() as i32;
        let mut dv = vec![0.0; v.len()];
        let dx = unsafe {
            __enzyme_autodiff(f as *const c_void, enzyme_out, x, enzyme_dup, v.as_ptr(), dv.as_mut_ptr(),
                              enzyme_const, n)
        };
        let fd_x = fd1(|t| f_of(t, &v), x, 1e-6);
        let fd_v = fd_grad(|w| f_of(x, w), &v, 1e-6);
        c.close("reverse df/dx vs FD", dx, fd_x, 1e-7);
        c.close_all("reverse df/dv vs FD", &dv, &fd_v, 1e-7);

        // forward along (1, 0): df/dx; along (0, u): <df/dv, u>. Both against reverse mode.
        let zero = vec![0.0; v.len()];
        let tx = unsafe {
            __enzyme_fwddiff(f as *const c_void, enzyme_dup, x, 1.0f64, enzyme_dup, v.as_ptr(), zero.as_ptr(),
                             enzyme_const, n)
        };
        c.close("forward df/dx vs reverse", tx, dx, 1e-12);
        let u = rng.vec(v.len());
        let tu = unsafe {
            __enzyme_fwddiff(f as *const c_void, enzyme_dup, x, 0.0f64, enzyme_dup, v.as_ptr(), u.as_ptr(),
                             enzyme_const, n)
        };
        c.close("forward <df/dv, u> vs reverse", tu, dot(&dv, &u), 1e-12);
    }
    c.finish()
}
