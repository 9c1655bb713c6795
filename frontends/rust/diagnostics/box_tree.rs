// A recursive enum whose variants put an f64 and a Box at the same offset (`Leaf(f64)` beside
// `Node(Box<Tree>, Box<Tree>, f64)`): moving a node cannot tell the two apart, so the derivative
// is refused (never a silent zero) in Rust terms, with a layout that works in the hint, not the
// C++ std::function advice.
// EXPECT: synthase: .*in function 'box_tree::build': the bytes this copy moves are used both as a pointer and as an f64
// EXPECT: hint: give the f64 and the pointers fields of their own
enum Tree {
    Leaf(f64),
    Node(Box<Tree>, Box<Tree>, f64),
}

fn build(x: &[f64]) -> Tree {
    if x.len() == 1 {
        Tree::Leaf(x[0])
    } else {
        let m = x.len() / 2;
        Tree::Node(Box::new(build(&x[..m])), Box::new(build(&x[m..])), x[m] * 0.5)
    }
}

fn eval(t: &Tree) -> f64 {
    match t {
        Tree::Leaf(v) => v.exp(),
        Tree::Node(l, r, w) => eval(l) * w + eval(r).sin(),
    }
}

synthase::autodiff! {
    #[autodiff_reverse(d_f, Duplicated, Active)]
    fn f(x: &[f64]) -> f64 {
        eval(&build(x))
    }
}

fn main() {
    let x = [0.3, -0.2, 0.9, 1.4, 0.1];
    let mut dx = [0.0; 5];
    let y = d_f(&x, &mut dx, 1.0);
    println!("{y} {dx:?}");
}
