// By-value `Active` types and forward-mode results that own heap memory through a field the macro cannot see (a user
// struct holding a Vec or a String): refused when the derivative is compiled, not zeroed into a
// struct of dangling pointers.
// EXPECT: evaluation panicked: synthase: argument `p` is `Active` but owns heap memory
// EXPECT: evaluation panicked: synthase: the result is `Active` but owns heap memory
// EXPECT: evaluation panicked: synthase: the result of `summary` owns heap memory inside a struct or tuple
struct Particle {
    history: Vec<f64>,
    mass: f64,
}
struct Labelled {
    name: String,
    value: f64,
}
synthase::autodiff! {
    #[autodiff_reverse(d_energy, Active, Active)]
    fn energy(p: Particle) -> f64 { p.mass * p.history[0] }
}
synthase::autodiff! {
    #[autodiff_reverse(d_label, Active, Active)]
    fn label(x: f64) -> Labelled { Labelled { name: String::from("x"), value: x * x } }
}
pub struct Summary {
    values: Vec<f64>,
    total: f64,
}
synthase::autodiff! {
    #[autodiff_forward(t_summary, Dual, Dual)]
    fn summary(x: &[f64]) -> Summary {
        let values: Vec<f64> = x.iter().map(|v| v.exp()).collect();
        let total = values.iter().sum();
        Summary { values, total }
    }
}
fn main() {
    let p = Particle { history: vec![1.0], mass: 2.0 };
    let (_, dp) = d_energy(p, 1.0);
    let seed = Labelled { name: String::new(), value: 1.0 };
    let (l, dx) = d_label(0.5, seed);
    println!("{} {} {} {}", dp.mass, l.name, l.value, dx);
    let (s, ds) = t_summary(&[1.0], &[1.0]);
    println!("{} {} {:?}", s.total, ds.total, ds.values);
}
