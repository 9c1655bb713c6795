// Threads started inside a differentiated function (std::thread::scope with disjoint chunks):
// refused with a message that names threads, not the std internals the generator meets first.
// EXPECT: in function '[a-z_]+::par': threads started inside a differentiated function \(std::thread::scope / spawn, pthread_create\) are not supported
// EXPECT: hint: differentiate the work each thread does and start the threads outside the derivative
synthase::autodiff! {
    #[autodiff_reverse(d_par, Duplicated, Active)]
    fn par(x: &[f64]) -> f64 {
        let mut out = vec![0.0; x.len()];
        std::thread::scope(|s| {
            for (o, c) in out.chunks_mut(2).zip(x.chunks(2)) {
                s.spawn(move || {
                    for (a, b) in o.iter_mut().zip(c) {
                        *a = b.sin() * b;
                    }
                });
            }
        });
        out.iter().sum()
    }
}

fn main() {
    let x = vec![0.1, 0.2, 0.3, 0.4];
    let mut dx = vec![0.0; 4];
    println!("{} {:?}", d_par(&x, &mut dx, 1.0), dx);
}
