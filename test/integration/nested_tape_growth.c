// Reverse over reverse over reverse of a loop with a run-time trip count: the second-order
// gradient's tape holds the inner gradient's tape blocks (pointers) next to floats and counters,
// and grows out of its frame buffer (a copy of a run-time number of mixed bytes) and, for the
// long loop, from one heap block to a larger one (realloc). Checked against the analytic first,
// second and third derivatives, and forward over reverse over reverse against the third.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
#include "check.h"

/* f(x) = sum_{i<n} w_i sin(k_i x) + x^3 / (1 + i),  k_i = 1 + i / n,  w_i = 1 / (1 + i % 7) */
static double f(double x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) {
    double k = 1.0 + (double)i / n;
    s += sin(k * x) / (1 + i % 7) + pow(x, 3) / (1 + i);
  }
  return s;
}

static double d1(double x, int n) { return __enzyme_autodiff((void *)f, x, enzyme_const, n); }
static double d2(double x, int n) { return __enzyme_autodiff((void *)d1, x, enzyme_const, n); }
static double d3(double x, int n) { return __enzyme_autodiff((void *)d2, x, enzyme_const, n); }

/* the j-th derivative of f, analytically */
static double exact(double x, int n, int j) {
  double s = 0;
  for (int i = 0; i < n; ++i) {
    double k = 1.0 + (double)i / n, w = 1.0 / (1 + i % 7), c = 1.0 / (1 + i);
    switch (j) {
    case 1: s += w * k * cos(k * x) + 3 * c * x * x; break;
    case 2: s += -w * k * k * sin(k * x) + 6 * c * x; break;
    default: s += -w * k * k * k * cos(k * x) + 6 * c; break;
    }
  }
  return s;
}

int main(void) {
  /* 5 iterations: the tapes stay in the frame; 40: the second level's tape leaves its frame
   * buffer; 6000: it also grows on the heap */
  const int ns[] = {5, 40, 6000};
  const double xs[] = {0.3, 1.23, -0.8};
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      int n = ns[a];
      double x = xs[b], tol = 1e-9 * (1 + fabs(exact(x, n, 3)));
      CHECK_CLOSE(d1(x, n), exact(x, n, 1), tol, "f' n=%d x=%g", n, x);
      CHECK_CLOSE(d2(x, n), exact(x, n, 2), tol, "f'' n=%d x=%g", n, x);
      double third = d3(x, n);
      CHECK_CLOSE(third, exact(x, n, 3), tol, "f''' n=%d x=%g", n, x);
      CHECK_CLOSE(__enzyme_fwddiff((void *)d2, x, 1.0, enzyme_const, n), third, tol,
                  "forward over reverse over reverse n=%d x=%g", n, x);
    }
  return check_report();
}
