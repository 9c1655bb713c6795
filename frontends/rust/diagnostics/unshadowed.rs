// A plugin error inside the user's function: active data stored into a `Const` buffer. The
// message points at the store in the user's source (with -g) and the hint names `Duplicated`.
// EXPECT-g: synthase: [^ ]*unshadowed\.rs:10:9: in function '[a-z_]+::scratch': an active value is stored into memory that has no shadow
// EXPECT: in function '[a-z_]+::scratch': an active value is stored into memory that has no shadow
// EXPECT: hint: pass this argument with `Duplicated` and a shadow buffer .*`Const` memory must not receive active data
synthase::autodiff! {
    #[autodiff_reverse(d_scratch, Duplicated, Const, Active)]
    fn scratch(x: &[f64], work: &mut [f64]) -> f64 {
        // the store below is line 10
        work[0] = x[0] * x[1];
        work[0].sin() + x[0]
    }
}

fn main() {
    let x = [0.5, 1.0];
    let mut dx = [0.0; 2];
    let mut w = [0.0; 1];
    let y = d_scratch(&x, &mut dx, &mut w, 1.0);
    println!("{y} {dx:?}");
}
