//! The std::autodiff surface: methods (`&self`, `&mut self`) in inherent and trait impls, generic
//! functions, `where` clauses, lifetimes, `unsafe fn`, raw pointers as `Duplicated`, structs and
//! tuples by value (`Const` and `Active`), tuple results, forward widths 3 and 64.
mod common;
use common::*;

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Params {
    pub a: f64,
    pub b: f64,
    pub c: f64,
}

pub struct Model {
    pub p: Params,
    pub calls: u64,
}

synthase::autodiff! {
    impl Model {
        #[autodiff_reverse(d_eval, Duplicated, Active, Active)]
        #[autodiff_forward(t_eval, Const, Dual, Dual)]
        pub fn eval(&self, x: f64) -> f64 {
            self.p.a * x * x + self.p.b * x.sin() + self.p.c
        }

        /// `&mut self`: the model scales its own parameters.
        #[autodiff_reverse(d_scale, Duplicated, Active)]
        pub fn scale(&mut self, s: f64) {
            self.p.a *= s;
            self.p.b *= s * s;
            self.calls += 1;
        }
    }
}

pub trait Energy {
    fn energy(&self, x: &[f64]) -> f64;
}

pub struct Spring<T> {
    pub k: T,
}

synthase::autodiff! {
    impl<T: Copy + Into<f64>> Energy for Spring<T> where T: 'static {
        #[autodiff_reverse(d_energy, Const, Duplicated, Active)]
        #[autodiff_forward(t_energy, 3, Const, Dual, DualOnly)]
        fn energy(&self, x: &[f64]) -> f64 {
            let k: f64 = self.k.into();
            x.windows(2).map(|w| 0.5 * k * (w[1] - w[0]) * (w[1] - w[0])).sum()
        }
    }
}

/// A generic trait for the generic function below.
pub trait Real: Copy + core::ops::Mul<Output = Self> + core::ops::Add<Output = Self> {
    fn sin(self) -> Self;
}
impl Real for f64 { fn sin(self) -> Self { f64::sin(self) } }
impl Real for f32 { fn sin(self) -> Self { f32::sin(self) } }

synthase::autodiff! {
    // generic, monomorphized per use (f64 and f32 below)
    #[autodiff_reverse(d_poly, Active, Active)]
    #[autodiff_forward(t_poly, Dual, DualOnly)]
    fn poly<T>(x: T) -> T where T: Real {
        x * x * x + x.sin()
    }

    // lifetimes and a `where` clause with a const generic
    #[autodiff_reverse(d_head, Duplicated, Const, Active)]
    fn head<'a, const N: usize>(x: &'a [f64], scale: f64) -> f64 where [f64; N]: Sized {
        x.iter().take(N).map(|v| v * v * scale).sum()
    }

    // raw pointers as Duplicated
    #[autodiff_reverse(d_raw, Duplicated, Const, Active)]
    #[autodiff_forward(t_raw, Dual, Const, DualOnly)]
    unsafe fn raw(x: *const f64, n: usize) -> f64 {
        let mut s = 0.0;
        for i in 0..n {
            let v = *x.add(i);
            s += v * v.cos();
        }
        s
    }

    // structs and tuples by value, Active and Const; a tuple result
    #[autodiff_reverse(d_by_value, Active, Active, Const, Active)]
    #[autodiff_forward(t_by_value, Dual, Dual, Const, Dual)]
    fn by_value(p: Params, t: (f64, f64), q: Params) -> (f64, f64) {
        (p.a * t.0 + p.b * t.1 * t.1 + q.c, (p.c * t.0).sin() * q.a)
    }

    // any forward width from 1 to 64
    #[autodiff_forward(t_wide, 64, Dual, DualOnly)]
    fn wide(x: &[f64]) -> f64 {
        x.iter().enumerate().map(|(i, v)| (i as f64 + 1.0) * v * v).sum()
    }

    // a trait object as Const: its calls see no active data
    #[autodiff_reverse(d_weighted, Duplicated, Const, Active)]
    #[autodiff_forward(t_weighted, Dual, Const, DualOnly)]
    fn weighted(x: &[f64], wfn: &dyn Fn(usize) -> f64) -> f64 {
        x.iter().enumerate().map(|(i, v)| v * v.sin() * wfn(i)).sum()
    }
}

fn main() {
    let mut c = Checker::new("surface");
    let h = 1e-6;

    // &self method, inherent impl
    let m = Model { p: Params { a: 1.5, b: -0.7, c: 0.3 }, calls: 0 };
    let mut dm = Model { p: Params::default(), calls: 0 };
    let x = 0.8;
    let (y, dx) = m.d_eval(&mut dm, x, 1.0);
    c.close("method value", y, m.eval(x), 1e-14);
    c.close("method d/dx", dx, fd1(|x| m.eval(x), x, h), 1e-6);
    let with = |f: &dyn Fn(&mut Params, f64), v: f64| {
        let mut p = m.p;
        f(&mut p, v);
        Model { p, calls: 0 }.eval(x)
    };
    c.close("method d/da", dm.p.a, fd1(|v| with(&|p, v| p.a = v, v), m.p.a, h), 1e-6);
    c.close("method d/db", dm.p.b, fd1(|v| with(&|p, v| p.b = v, v), m.p.b, h), 1e-6);
    c.close("method d/dc", dm.p.c, 1.0, 1e-12);
    let dir = Model { p: Params { a: 0.0, b: 0.0, c: 0.0 }, calls: 0 };
    let (y2, t) = m.t_eval(x, 1.0);
    let _ = dir;
    c.close("method forward value", y2, m.eval(x), 1e-14);
    c.close("method forward d/dx", t, dx, 1e-12);

    // &mut self: d(a*s + b*s^2 written into self) / ds, seeded by the shadow of self
    let mut m2 = Model { p: Params { a: 2.0, b: 3.0, c: 0.0 }, calls: 0 };
    let mut dm2 = Model { p: Params { a: 1.0, b: 1.0, c: 0.0 }, calls: 0 };
    let ds = m2.d_scale(&mut dm2, 1.5);
    c.close("&mut self result", m2.p.a, 3.0, 1e-14);
    c.close("&mut self d(a+b)/ds", ds, 2.0 + 2.0 * 3.0 * 1.5, 1e-12);
    c.close("&mut self d/da (seed*s)", dm2.p.a, 1.5, 1e-12);

    // trait impl on a generic type, width-3 forward
    let sp = Spring { k: 2.5f32 };
    let xs = [0.0, 0.4, 1.1, 1.3];
    let mut dxs = [0.0; 4];
    let e = sp.d_energy(&xs, &mut dxs, 1.0);
    c.close("trait method value", e, sp.energy(&xs), 1e-12);
    c.close_all("trait method gradient", &dxs, &fd_grad(|x| sp.energy(x), &xs, h), 1e-6);
    let v0 = [1.0, 0.0, 0.0, 0.0];
    let v1 = [0.0, 1.0, -1.0, 0.0];
    let v2 = [0.3, 0.2, 0.1, 0.5];
    let ts = sp.t_energy(&xs, [&v0[..], &v1[..], &v2[..]]);
    for (i, v) in [v0, v1, v2].iter().enumerate() {
        c.close(&format!("trait method width 3 lane {i}"), ts[i], dot(&dxs, v), 1e-10);
    }

    // generic function, f64 and f32
    let (p64, g64) = d_poly(0.6f64, 1.0);
    c.close("generic f64 value", p64, poly(0.6f64), 1e-14);
    c.close("generic f64 derivative", g64, fd1(poly::<f64>, 0.6, h), 1e-6);
    c.close("generic f64 forward", t_poly(0.6f64, 1.0), g64, 1e-12);
    let (_, g32) = d_poly(0.6f32, 1.0f32);
    c.close("generic f32 derivative", g32 as f64, g64, 1e-5);

    // lifetimes + const generic
    let xs = [0.5, -1.0, 2.0, 4.0];
    let mut dh = [0.0; 4];
    let hv = d_head::<3>(&xs, &mut dh, 2.0, 1.0);
    c.close("const generic value", hv, head::<3>(&xs, 2.0), 1e-14);
    c.close_all("const generic gradient", &dh, &[2.0, -4.0, 8.0, 0.0], 1e-12);

    // raw pointers
    let mut draw = [0.0; 4];
    let r = unsafe { d_raw(xs.as_ptr(), draw.as_mut_ptr(), 4, 1.0) };
    c.close("raw pointer value", r, unsafe { raw(xs.as_ptr(), 4) }, 1e-14);
    c.close_all("raw pointer gradient", &draw, &fd_grad(|x| unsafe { raw(x.as_ptr(), 4) }, &xs, h), 1e-6);
    let dir = [1.0, 0.5, -0.5, 0.25];
    c.close("raw pointer forward", unsafe { t_raw(xs.as_ptr(), dir.as_ptr(), 4) }, dot(&draw, &dir), 1e-10);

    // structs and tuples by value, tuple result
    let p = Params { a: 0.9, b: -1.2, c: 0.4 };
    let q = Params { a: 1.7, b: 0.0, c: 0.25 };
    let t = (0.7, 1.3);
    let f = |p: Params, t: (f64, f64)| by_value(p, t, q);
    let ((r0, r1), dp, dt) = d_by_value(p, t, q, (1.0, 0.5));
    let (w0, w1) = f(p, t);
    c.close("tuple result .0", r0, w0, 1e-14);
    c.close("tuple result .1", r1, w1, 1e-14);
    let lin = |p: Params, t: (f64, f64)| { let (a, b) = f(p, t); a + 0.5 * b };
    c.close("Active struct d/da", dp.a, fd1(|v| lin(Params { a: v, ..p }, t), p.a, h), 1e-6);
    c.close("Active struct d/db", dp.b, fd1(|v| lin(Params { b: v, ..p }, t), p.b, h), 1e-6);
    c.close("Active struct d/dc", dp.c, fd1(|v| lin(Params { c: v, ..p }, t), p.c, h), 1e-6);
    c.close("Active tuple d/dt.0", dt.0, fd1(|v| lin(p, (v, t.1)), t.0, h), 1e-6);
    c.close("Active tuple d/dt.1", dt.1, fd1(|v| lin(p, (t.0, v)), t.1, h), 1e-6);
    let dpv = Params { a: 0.1, b: 0.2, c: -0.3 };
    let dtv = (0.5, -0.25);
    let ((f0, _), (tg0, tg1)) = t_by_value(p, dpv, t, dtv, q);
    c.close("forward by value primal", f0, w0, 1e-14);
    c.close("forward tuple tangent", tg0 + 0.5 * tg1,
            dp.a * dpv.a + dp.b * dpv.b + dp.c * dpv.c + dt.0 * dtv.0 + dt.1 * dtv.1, 1e-10);

    // width 64
    let xw: Vec<f64> = (0..64).map(|i| 0.01 * i as f64 - 0.2).collect();
    let basis: Vec<Vec<f64>> = (0..64).map(|i| (0..64).map(|j| (i == j) as i32 as f64).collect()).collect();
    let lanes: [&[f64]; 64] = core::array::from_fn(|i| &basis[i][..]);
    let tw = t_wide(&xw, lanes);
    let gw = fd_grad(|x| wide(x), &xw, h);
    c.close_all("width 64 gradient", &tw, &gw, 1e-6);

    // &dyn Fn as Const
    let wfn = |i: usize| 1.0 + 0.5 * i as f64;
    let xd = [0.4, -1.1, 2.0];
    let mut dxd = [0.0; 3];
    let yd = d_weighted(&xd, &mut dxd, &wfn, 1.0);
    c.close("dyn Fn: value", yd, weighted(&xd, &wfn), 1e-14);
    c.close_all("dyn Fn: gradient", &dxd, &fd_grad(|x| weighted(x, &wfn), &xd, h), 1e-6);
    let vd = [0.3, 1.0, -0.7];
    c.close("dyn Fn: forward vs reverse", t_weighted(&xd, &vd, &wfn), dot(&dxd, &vd), 1e-12);
    c.finish()
}
