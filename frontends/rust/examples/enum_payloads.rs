//! Enums carrying `f64` payloads, collected into a `Vec` and matched: rustc types the enum as
//! integers (`{ i64, [2 x i64] }`) and builds each value in 8-byte stack slots that the payload
//! is stored into as `f64` and read out of as `i64`, so only the accesses tell that the bytes
//! are floats. Checked against analytic derivatives and finite differences, both modes.
mod common;
use common::*;

#[derive(Clone, Copy)]
enum Shape {
    Disc(f64),
    Rect(f64, f64),
}

#[derive(Clone, Copy)]
enum Layer {
    Scale(f64),
    Affine(f64, f64),
    Relu,
}

fn area(s: &Shape) -> f64 {
    match *s {
        Shape::Disc(r) => 3.0 * r * r,
        Shape::Rect(w, h) => w * h,
    }
}

fn apply(l: &Layer, x: f64) -> f64 {
    match *l {
        Layer::Scale(a) => a * x,
        Layer::Affine(a, b) => a * x + b,
        Layer::Relu => x.max(0.0),
    }
}

synthase::autodiff! {
    #[autodiff_reverse(d_areas, Duplicated, Active)]
    #[autodiff_forward(t_areas, Dual, Dual)]
    fn areas(x: &[f64]) -> f64 {
        let shapes: Vec<Shape> = x
            .chunks(2)
            .enumerate()
            .map(|(i, c)| if i % 2 == 0 { Shape::Disc(c[0]) } else { Shape::Rect(c[0], c[1]) })
            .collect();
        let mut s = 0.0;
        for e in shapes.iter() {
            s += area(e);
        }
        s
    }

    #[autodiff_reverse(d_network, Duplicated, Active)]
    #[autodiff_forward(t_network, Dual, Dual)]
    fn network(p: &[f64]) -> f64 {
        let layers: Vec<Layer> = p
            .chunks(2)
            .enumerate()
            .map(|(i, c)| match i % 3 {
                0 => Layer::Scale(c[0]),
                1 => Layer::Affine(c[0], c[1]),
                _ => Layer::Relu,
            })
            .collect();
        let mut y = 0.0;
        for (k, input) in [0.3, -1.2, 2.0].iter().enumerate() {
            let out = layers.iter().fold(*input, |x, l| apply(l, x));
            y += (k as f64 + 1.0) * out * out;
        }
        y
    }
}

fn main() {
    let mut c = Checker::new("enum_payloads");
    let x = [0.5, 9.0, 1.2, 0.7, 3.0, 4.0, 0.9, 0.2];
    // (0.5, 9) disc, (1.2, 0.7) rect, (3, 4) disc, (0.9, 0.2) rect.
    let want = [3.0, 0.0, 0.7, 1.2, 18.0, 0.0, 0.2, 0.9];
    let mut dx = [0.0; 8];
    let value = d_areas(&x, &mut dx, 1.0);
    c.close("areas value", value, areas(&x), 1e-12);
    c.close_all("areas reverse d/dx", &dx, &want, 1e-12);
    let v = [0.3, -0.2, 0.5, 0.1, -0.4, 0.7, 0.2, -0.6];
    let (_, jv) = t_areas(&x, &v);
    c.close("areas forward vs analytic", jv, dot(&want, &v), 1e-12);

    let mut rng = Lcg(11);
    for n in [6usize, 12, 13] {
        let p: Vec<f64> = rng.vec(n).iter().map(|t| t + 1.5).collect();
        let mut dp = vec![0.0; n];
        let value = d_network(&p, &mut dp, 1.0);
        c.close(&format!("network n={n} value"), value, network(&p), 1e-12);
        let fd = fd_grad(network, &p, 1e-6);
        c.close_all(&format!("network n={n} reverse vs finite differences"), &dp, &fd, 1e-5);
        let v = rng.vec(n);
        let (_, jv) = t_network(&p, &v);
        c.close(&format!("network n={n} forward vs reverse"), jv, dot(&dp, &v), 1e-10);
    }
    c.finish()
}
