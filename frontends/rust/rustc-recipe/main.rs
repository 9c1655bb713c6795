//! The plain-rustc recipe (no cargo), built by run-tests.sh:
//!   rustc --crate-type rlib --crate-name synthase --edition 2021 -C linker-plugin-lto ../src/lib.rs
//!   rustc --edition 2021 -C lto=fat -C linker-plugin-lto -C linker=clang-22 -C link-arg=-fuse-ld=lld \
//!         -C link-arg=-Wl,--load-pass-plugin=/path/to/Synthase.so --extern synthase=libsynthase.rlib main.rs
synthase::autodiff! {
    #[autodiff_reverse(d_f, Duplicated, Active, Active)] // d_f(x, &mut dx, y, seed) -> (f, df/dy)
    #[autodiff_forward(t_f, Dual, Const, DualOnly)]       // t_f(x, dx, y) -> tangent
    fn f(x: &[f64], y: f64) -> f64 {
        x.iter().map(|v| (v * y).sin()).sum()
    }
}

fn main() {
    let (x, y) = ([0.5, -1.0, 2.0], 0.75);
    let mut dx = [0.0; 3];
    let (value, dy) = d_f(&x, &mut dx, y, 1.0);
    let v = [1.0, 0.5, -2.0];
    let t = t_f(&x, &v, y);
    let want_dx: Vec<f64> = x.iter().map(|a| y * (a * y).cos()).collect();
    let want_dy: f64 = x.iter().map(|a| a * (a * y).cos()).sum();
    let want_t: f64 = want_dx.iter().zip(&v).map(|(g, d)| g * d).sum();
    let mut ok = (value - f(&x, y)).abs() < 1e-14 && (dy - want_dy).abs() < 1e-12 && (t - want_t).abs() < 1e-12;
    for (g, w) in dx.iter().zip(&want_dx) {
        ok &= (g - w).abs() < 1e-12;
    }
    println!("f = {value}, df/dx = {dx:?} (want {want_dx:?}), df/dy = {dy} (want {want_dy}), tangent = {t} (want {want_t})");
    std::process::exit(if ok { 0 } else { 1 });
}
