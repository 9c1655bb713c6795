//! A small multilayer perceptron (2 -> 16 tanh -> 1) trained by gradient descent. The weights are
//! `Vec<f64>` fields of a struct, the loss is a `&self` method that allocates its hidden layer as a
//! `Vec` per sample; its gradient lands in a shadow `Mlp` of the same shape. Checked: the gradient
//! against central finite differences at the start, forward mode against the gradient, then the loss
//! falls.
mod common;
use common::*;

const HIDDEN: usize = 16;

#[derive(Clone)]
pub struct Mlp {
    w1: Vec<f64>, // HIDDEN x 2, row-major
    b1: Vec<f64>,
    w2: Vec<f64>,
    b2: Vec<f64>, // one element: a Vec keeps every parameter behind a pointer with a shadow
}

synthase::autodiff! {
    impl Mlp {
        /// Mean squared error over the samples `data` = [x0, x1, target, x0, x1, target, ...].
        #[autodiff_reverse(d_loss, Duplicated, Const, Active)]
        #[autodiff_forward(t_loss, Dual, Const, DualOnly)]
        pub fn loss(&self, data: &[f64]) -> f64 {
            let n = data.len() / 3;
            let mut total = 0.0;
            for s in data.chunks_exact(3) {
                let hidden: Vec<f64> = (0..HIDDEN)
                    .map(|j| (self.w1[2 * j] * s[0] + self.w1[2 * j + 1] * s[1] + self.b1[j]).tanh())
                    .collect();
                let out = hidden.iter().zip(&self.w2).map(|(h, w)| h * w).sum::<f64>() + self.b2[0];
                let e = out - s[2];
                total += e * e;
            }
            total / n as f64
        }
    }
}

impl Mlp {
    fn new(rng: &mut Lcg) -> Self {
        Mlp { w1: rng.vec(2 * HIDDEN), b1: rng.vec(HIDDEN), w2: rng.vec(HIDDEN).iter().map(|v| 0.5 * v).collect(), b2: vec![0.0] }
    }
    fn zeros() -> Self {
        Mlp { w1: vec![0.0; 2 * HIDDEN], b1: vec![0.0; HIDDEN], w2: vec![0.0; HIDDEN], b2: vec![0.0] }
    }
    fn params(&self) -> Vec<f64> {
        [&self.w1[..], &self.b1, &self.w2, &self.b2].concat()
    }
    fn from_params(p: &[f64]) -> Self {
        let (w1, r) = p.split_at(2 * HIDDEN);
        let (b1, r) = r.split_at(HIDDEN);
        let (w2, b2) = r.split_at(HIDDEN);
        Mlp { w1: w1.to_vec(), b1: b1.to_vec(), w2: w2.to_vec(), b2: b2.to_vec() }
    }
}

fn main() {
    let mut c = Checker::new("mlp");
    let mut rng = Lcg(42);
    let mut data = Vec::new();
    for _ in 0..64 {
        let (x0, x1) = (2.0 * rng.next(), 2.0 * rng.next());
        data.extend_from_slice(&[x0, x1, x0.sin() * x1.cos()]);
    }
    let mut net = Mlp::new(&mut rng);

    // The gradient at the start: finite differences, forward mode along a random direction.
    let mut grad = Mlp::zeros();
    let l0 = net.d_loss(&mut grad, &data, 1.0);
    c.close("loss value from the gradient call", l0, net.loss(&data), 1e-13);
    let fd = fd_grad(|p| Mlp::from_params(p).loss(&data), &net.params(), 1e-6);
    c.close_all("dloss/dparams vs FD", &grad.params(), &fd, 1e-6);
    // Forward mode along a random direction of the parameters: the directional derivative equals
    // <gradient, direction>.
    let dir = Mlp::new(&mut rng);
    let jvp = net.t_loss(&dir, &data);
    let dot: f64 = grad.params().iter().zip(dir.params()).map(|(g, d)| g * d).sum();
    c.close("forward tangent vs <gradient, direction>", jvp, dot, 1e-12);
    let fdd = fd1(|h| {
        let p: Vec<f64> = net.params().iter().zip(dir.params()).map(|(w, d)| w + h * d).collect();
        Mlp::from_params(&p).loss(&data)
    }, 0.0, 1e-6);
    c.close("forward tangent vs FD", jvp, fdd, 1e-6);

    // Gradient descent.
    let rate = 0.2;
    let mut loss = l0;
    for _ in 0..300 {
        let mut g = Mlp::zeros();
        loss = net.d_loss(&mut g, &data, 1.0);
        let p: Vec<f64> = net.params().iter().zip(g.params()).map(|(w, d)| w - rate * d).collect();
        net = Mlp::from_params(&p);
    }
    let trained = net.loss(&data);
    println!("loss: {l0:.6} -> {trained:.6} after 300 steps");
    c.close("loss of the last step", loss, trained, 0.05);
    c.close("loss falls below a third", (trained < l0 / 3.0) as i32 as f64, 1.0, 0.0);

    // Cost of a gradient against the primal (reported, not checked: timing is noisy).
    let reps = 200;
    let t = std::time::Instant::now();
    let mut acc = 0.0;
    for _ in 0..reps {
        acc += std::hint::black_box(&net).loss(std::hint::black_box(&data));
    }
    let primal = t.elapsed().as_secs_f64();
    let t = std::time::Instant::now();
    for _ in 0..reps {
        let mut g = Mlp::zeros();
        acc += std::hint::black_box(&net).d_loss(&mut g, std::hint::black_box(&data), 1.0);
    }
    let gradient = t.elapsed().as_secs_f64();
    std::hint::black_box(acc);
    println!("gradient / primal time: {:.2}", gradient / primal);
    c.finish()
}
