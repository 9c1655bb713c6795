// Forms the macro refuses, each named at the user's token (the file does not compile).
// EXPECT: error: autodiff_forward: `Dualv` \(strided tangents in one buffer\) is for slices and references; `x` is passed by value
// EXPECT: --> diagnostics/macro_forms.rs:26:39
// EXPECT: error: autodiff_reverse: `Dualv` is a forward-mode activity; in reverse mode use `Duplicated` with a width
// EXPECT: --> diagnostics/macro_forms.rs:30:29
// EXPECT: error: autodiff_reverse: the width must be an integer from 1 to 64
// EXPECT: --> diagnostics/macro_forms.rs:34:29
// EXPECT: error: synthase::autodiff!: custom derivatives and `#\[inactive\]` need a function that is not generic
// EXPECT: --> diagnostics/macro_forms.rs:38:7
// EXPECT: error: synthase::autodiff!: custom derivatives and `#\[inactive\]` are registered for free functions
// EXPECT: --> diagnostics/macro_forms.rs:44:11
// EXPECT: error: synthase::autodiff!: `#\[custom_reverse\]` on `count`, which returns the integer type `usize`
// EXPECT: --> diagnostics/macro_forms.rs:49:7
// EXPECT: error: synthase::autodiff!: a function with a custom derivative takes floats, integers, references, slices and raw pointers; `p: \(f64, f64\)`
// EXPECT: --> diagnostics/macro_forms.rs:54:13
// EXPECT: error: write `#\[custom_reverse\(AUGMENTED_FN, REVERSE_FN\)\]`
// EXPECT: --> diagnostics/macro_forms.rs:57:7
// EXPECT: error: autodiff_reverse: `squares` returns `Vec < f64 >`, which holds its data behind a pointer \(Vec\)
// EXPECT: --> diagnostics/macro_forms.rs:62:47
// EXPECT: error: autodiff_reverse: `v: Vec < f64 >` holds its data behind a pointer \(Vec\)
// EXPECT: --> diagnostics/macro_forms.rs:66:33
fn aug() {}
fn rev() {}

synthase::autodiff! {
    #[autodiff_forward(t_a, 2, Const, Dualv, DualOnly)]
    fn a(n: usize, x: f64) -> f64 { x * n as f64 }
}
synthase::autodiff! {
    #[autodiff_reverse(d_b, Dualv, Active)]
    fn b(x: &[f64]) -> f64 { x[0] }
}
synthase::autodiff! {
    #[autodiff_reverse(d_c, 65, Duplicated, Active)]
    fn c(x: &[f64]) -> f64 { x[0] }
}
synthase::autodiff! {
    #[custom_reverse(aug, rev)]
    fn g<T: Copy>(x: T) -> T { x }
}
struct S;
synthase::autodiff! {
    impl S {
        #[custom_forward(aug)]
        fn m(&self, x: f64) -> f64 { x }
    }
}
synthase::autodiff! {
    #[custom_reverse(aug, rev)]
    fn count(x: &[f64]) -> usize { x.len() }
}
synthase::autodiff! {
    #[custom_forward(aug)]
    fn pair(p: (f64, f64)) -> f64 { p.0 }
}
synthase::autodiff! {
    #[custom_reverse(aug)]
    fn one(x: f64) -> f64 { x }
}

synthase::autodiff! {
    #[autodiff_reverse(d_squares, Duplicated, Active)]
    fn squares(x: &[f64]) -> Vec<f64> { x.iter().map(|v| v * v).collect() }
}
synthase::autodiff! {
    #[autodiff_reverse(d_total, Active, Active)]
    fn total(v: Vec<f64>) -> f64 { v.iter().sum() }
}

fn main() {}
