//! A struct-of-parameters physics model: a projectile with quadratic air drag, integrated with
//! semi-implicit Euler steps by `&self` methods. The derivatives of the landing distance with
//! respect to the model's parameters (the struct's shadow), the launch speed and the angle are
//! checked against finite differences, forward against reverse mode; then Newton's method on the
//! angle (with the forward derivative) hits a target distance.
mod common;
use common::*;

#[derive(Clone, Copy, Debug, Default)]
pub struct Projectile {
    pub mass: f64,
    pub drag: f64,    // F = -drag * |v| v
    pub gravity: f64,
    pub dt: f64,
}

#[derive(Clone, Copy)]
struct State {
    x: f64,
    y: f64,
    vx: f64,
    vy: f64,
}

impl Projectile {
    fn step(&self, s: &mut State) {
        let speed = (s.vx * s.vx + s.vy * s.vy).sqrt();
        let k = self.drag * speed / self.mass;
        s.vx -= self.dt * k * s.vx;
        s.vy -= self.dt * (k * s.vy + self.gravity);
        s.x += self.dt * s.vx;
        s.y += self.dt * s.vy;
    }
}

synthase::autodiff! {
    impl Projectile {
        /// Horizontal distance where the path comes back to the launch height, interpolated
        /// between the two steps around the crossing (smooth in every input).
        #[autodiff_reverse(d_distance, Duplicated, Active, Active, Active)]
        #[autodiff_forward(t_distance, Dual, Dual, Dual, Dual)]
        pub fn distance(&self, speed: f64, angle: f64) -> f64 {
            let mut s = State { x: 0.0, y: 0.0, vx: speed * angle.cos(), vy: speed * angle.sin() };
            let mut prev = s;
            for _ in 0..100_000 {
                prev = s;
                self.step(&mut s);
                if s.y < 0.0 {
                    break;
                }
            }
            let f = prev.y / (prev.y - s.y);
            prev.x + f * (s.x - prev.x)
        }
    }
}

fn main() {
    let mut c = Checker::new("projectile");
    let p = Projectile { mass: 0.45, drag: 0.012, gravity: 9.81, dt: 1e-3 };
    let (speed, angle) = (22.0, 0.7);
    let d = p.distance(speed, angle);
    println!("distance {d:.4} m");

    let mut dp = Projectile::default();
    let (value, d_speed, d_angle) = p.d_distance(&mut dp, speed, angle, 1.0);
    c.close("distance from the gradient call", value, d, 1e-13);
    let h = 1e-6;
    c.close("d/dspeed", d_speed, fd1(|v| p.distance(v, angle), speed, h), 1e-6);
    c.close("d/dangle", d_angle, fd1(|a| p.distance(speed, a), angle, h), 1e-6);
    c.close("d/dmass", dp.mass, fd1(|m| Projectile { mass: m, ..p }.distance(speed, angle), p.mass, h), 1e-6);
    c.close("d/ddrag", dp.drag, fd1(|k| Projectile { drag: k, ..p }.distance(speed, angle), p.drag, 1e-8), 1e-6);
    c.close("d/dgravity", dp.gravity, fd1(|g| Projectile { gravity: g, ..p }.distance(speed, angle), p.gravity, h), 1e-6);

    // Forward mode along a direction in (parameters, speed, angle) agrees with the reverse gradient.
    let dir = Projectile { mass: 0.3, drag: -2.0, gravity: 0.1, dt: 0.0 };
    let (fv, ft) = p.t_distance(&dir, speed, 0.5, angle, -0.25);
    c.close("forward value", fv, d, 1e-13);
    let want = dp.mass * dir.mass + dp.drag * dir.drag + dp.gravity * dir.gravity + 0.5 * d_speed - 0.25 * d_angle;
    c.close("forward tangent vs reverse gradient", ft, want, 1e-10);

    // Newton on the angle: reach 20 m with the same launch speed.
    let target = 20.0;
    let mut a = 0.3;
    for _ in 0..8 {
        let (dist, slope) = p.t_distance(&Projectile::default(), speed, 0.0, a, 1.0);
        a -= (dist - target) / slope;
    }
    c.close("Newton: distance at the solved angle", p.distance(speed, a), target, 1e-9);
    c.finish()
}
