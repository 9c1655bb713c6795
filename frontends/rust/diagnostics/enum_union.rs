// One enum slot holding either a heap address or an f64: a helper returning
// `Result<Vec<f64>, E>` whose error variant carries an f64, consumed with `?` in a function
// returning `Result<f64, E>`. The optimizer gives the slot one type (double, or the integer
// bits of both), so the Vec's address reaches its uses through a float, or the float's bits come
// from the Vec's memory beside its address. Either way the derivative would be lost: refused,
// never a silent zero (the unoptimized build used to return a zero derivative).
// EXPECT: synthase: .*in function 'enum_union::solve': .*(carried through a floating-point value|used both as an address and as a float|used both as a pointer and as a floating-point value|used both as a pointer and as an f64|bitcast between a float and a non-float type)
#[derive(Debug)]
pub enum SolveError {
    Singular(String),
    Diverged(f64),
}

#[inline(never)]
fn step(a: f64) -> Result<Vec<f64>, SolveError> {
    if a > 100.0 {
        return Err(SolveError::Singular(format!("{a}")));
    }
    if a > 50.0 {
        return Err(SolveError::Diverged(a));
    }
    Ok(vec![a * 2.0, a * a])
}

fn first(a: f64) -> Result<f64, SolveError> {
    let v = step(a)?;
    Ok(v[0] + v[1])
}

synthase::autodiff! {
    #[autodiff_reverse(d_solve, Active, Active)]
    #[autodiff_forward(t_solve, Dual, Dual)]
    fn solve(a: f64) -> f64 { first(a).unwrap_or(0.0) }
}

fn main() {
    println!("{:?} {:?}", d_solve(1.5, 1.0), t_solve(1.5, 1.0));
}
