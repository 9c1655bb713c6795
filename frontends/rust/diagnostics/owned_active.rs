// By-value `Active` types that own heap memory through a field the macro cannot see (a user
// struct holding a Vec or a String): refused when the derivative is compiled, not zeroed into a
// struct of dangling pointers.
// EXPECT: evaluation panicked: synthase: argument `p` is `Active` but owns heap memory
// EXPECT: evaluation panicked: synthase: the result is `Active` but owns heap memory
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
fn main() {
    let p = Particle { history: vec![1.0], mass: 2.0 };
    let (_, dp) = d_energy(p, 1.0);
    let seed = Labelled { name: String::new(), value: 1.0 };
    let (l, dx) = d_label(0.5, seed);
    println!("{} {} {} {}", dp.mass, l.name, l.value, dx);
}
