// A plugin error at the call site (an integer instantiation of an `Active` generic): it names the
// user's function and the derivative, in Rust activity names, at the function's line with -g.
// EXPECT-g: synthase: [^ ]*call_site\.rs:10: in function '[a-z_]+::d_square', at the derivative of '[a-z_]+::square': autodiff_reverse: `Active` on argument 0 which is not a floating-point value
// EXPECT: at the derivative of '[a-z_]+::square': autodiff_reverse: `Active` on argument 0
// EXPECT: hint: pointers take `Duplicated` with a shadow; integers are `Const`
// EXPECT: instruction: .*@__enzyme_autodiff\(
synthase::autodiff! {
    #[autodiff_reverse(d_square, Active, Active)]
    #[inline(never)]
    fn square<T: Copy + core::ops::Mul<Output = T>>(x: T) -> T {
        x * x
    }
}

fn main() {
    let (y, dx) = d_square(3i32, 1i32);
    println!("{y} {dx}");
}
