// -ffast-math at -O0: the primal runs unoptimized while the derivative is generated from an
// optimized clone. The clone must compute what the primal computes (no x/3 -> x*(1/3), no
// reassociation), or a loop test decided by rounding takes another path and the derivative is
// that of another function. Here `time + dt <= t` with dt = t/3 decides between 2 and 3 steps.
// RUN: %synthase-cc -O0 -ffast-math -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cxx -x c++ -O0 -ffast-math -I%inputs %s -o %t1 -lm && %t1
#include "check.h"

static double power_by_steps(double x, double t) {
  double dt = t / 3.0, y = 1.0, time = 0.0;
  int step = 0;
  while (time + dt <= t) {
    y *= x;
    ++step;
    time = step * dt;
  }
  return y; /* x^steps */
}

int main(void) {
  volatile double tv = 3.1;
  double t = tv, x = 1.7;
  double p = power_by_steps(2.0, t);
  int steps = p == 4.0 ? 2 : p == 8.0 ? 3 : -1;
  CHECK_TRUE(steps > 0, "primal took 2 or 3 steps");
  double want = steps * pow(x, steps - 1);
  double g = __enzyme_autodiff((void *)power_by_steps, x, enzyme_const, t);
  CHECK_CLOSE(g, want, 1e-14, "reverse derivative follows the primal's %d steps", steps);
  double d = __enzyme_fwddiff((void *)power_by_steps, x, 1.0, enzyme_const, t);
  CHECK_CLOSE(d, want, 1e-14, "forward derivative follows the primal's %d steps", steps);
  return check_report();
}
