// A variadic function that never reads its variable arguments (the C shape of libstdc++'s
// overload-resolution fallbacks): calls to it carry extra arguments, and derivatives go through
// a fixed-arity copy. Both modes vs. the analytic derivative, -O0 (kept out of line) and -O2.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
#include "check.h"

__attribute__((noinline)) static double scaled(const double *x, int i, ...) { return x[i] * x[i] * 3.0; }

static double f(const double *x) {
  double s = 0;
  for (int i = 0; i < 3; ++i)
    s += sin(scaled(x, i, 0, 1.5, x)); // the extra arguments are ignored by the callee
  return s;
}

int main() {
  double x[3] = {0.3, -0.8, 1.1}, dx[3] = {0};
  __enzyme_autodiff((void *)f, x, dx);
  for (int i = 0; i < 3; ++i) {
    double want = cos(3 * x[i] * x[i]) * 6 * x[i];
    CHECK_CLOSE(dx[i], want, 1e-13, "rev d[%d]", i);
    double v[3] = {0};
    v[i] = 1;
    CHECK_CLOSE(__enzyme_fwddiff((void *)f, x, v), want, 1e-13, "fwd d[%d]", i);
  }
  return check_report();
}
