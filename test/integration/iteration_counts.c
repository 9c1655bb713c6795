// Enzyme's __enzyme_iter(N, k): an iteration count that is N in the program as written, N + k in
// a derivative and N + 2k in a derivative of a derivative (a truncated series keeps its accuracy
// under differentiation). Synthase refused the call before. Here a Taylor series of exp cut at
// __enzyme_iter(10, 2) terms: the primal sums x^i/i! for i <= 10, its derivative (reverse or
// forward) is the derivative of the sum up to 12, i.e. the sum up to 11, and second derivatives
// (forward over reverse, reverse over reverse) differentiate the sum up to 14 twice: the sum up
// to 12. Each is compared with that partial sum.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
#include "check.h"
#include <stdint.h>

#ifdef __cplusplus
extern "C"
#endif
uint64_t __enzyme_iter(uint64_t, uint64_t);

static double taylor_exp(double x) {
  uint64_t n = __enzyme_iter(10, 2);
  double term = 1, sum = 1;
  for (uint64_t i = 1; i <= n; ++i) {
    term *= x / (double)i;
    sum += term;
  }
  return sum;
}

static double partial_sum(double x, int n) {
  double term = 1, sum = 1;
  for (int i = 1; i <= n; ++i) {
    term *= x / i;
    sum += term;
  }
  return sum;
}

static double d_rev(double x) { return __enzyme_autodiff((void *)taylor_exp, x); }
static double d_fwd(double x) { return __enzyme_fwddiff((void *)taylor_exp, x, 1.0); }
static double dd_fwd_rev(double x) { return __enzyme_fwddiff((void *)d_rev, x, 1.0); }
static double dd_rev_rev(double x) { return __enzyme_autodiff((void *)d_rev, x); }

int main(void) {
  const double xs[] = {0.5, 1.7, 2.9};
  for (int k = 0; k < 3; ++k) {
    double x = xs[k];
    CHECK_CLOSE(taylor_exp(x), partial_sum(x, 10), 1e-15, "primal: 10 terms at x = %g", x);
    CHECK_CLOSE(d_rev(x), partial_sum(x, 11), 1e-14, "reverse: derivative of 12 terms at x = %g", x);
    CHECK_CLOSE(d_fwd(x), partial_sum(x, 11), 1e-14, "forward: derivative of 12 terms at x = %g", x);
    CHECK_CLOSE(dd_fwd_rev(x), partial_sum(x, 12), 1e-14, "forward over reverse: 14 terms at x = %g", x);
    CHECK_CLOSE(dd_rev_rev(x), partial_sum(x, 12), 1e-14, "reverse over reverse: 14 terms at x = %g", x);
  }
  return check_report();
}
