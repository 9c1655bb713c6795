// Enzyme convention: `enzyme_nocache` before an argument (alone, or before enzyme_dup /
// enzyme_const) tells Enzyme the argument's memory is not changed between the forward and the
// reverse sweep, so it need not be cached. Synthase tapes what it decides itself and accepts the
// marker as a no-op (it was "unknown marker" before). Checked in split mode (the marker on
// __enzyme_augmentfwd and __enzyme_reverse) and in __enzyme_autodiff, against the analytic
// gradient y_i = c_i x_i^2 -> dx_i = c_i * 2 x_i * dy_i.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
#include "check.h"

#ifdef __cplusplus
extern "C" {
#endif
extern int enzyme_nocache;
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);
void __enzyme_autodiff_v(void *, ...);
#ifdef __cplusplus
}
#endif

enum { N = 6 };

static void scaled_squares(double *y, const double *x, const double *c, int n) {
  for (int i = 0; i < n; ++i)
    y[i] = c[i] * x[i] * x[i];
}

int main(void) {
  double x[N], c[N], y[N], dx[N], dy[N];
  for (int i = 0; i < N; ++i) {
    x[i] = 0.5 + i;
    c[i] = 1.0 - 0.3 * i;
    dx[i] = 0;
    dy[i] = 1.0 + 0.1 * i;
  }
  void *tape = __enzyme_augmentfwd((void *)scaled_squares, enzyme_nocache, y, dy, enzyme_nocache, x, dx,
                                   enzyme_nocache, enzyme_const, c, enzyme_const, N);
  for (int i = 0; i < N; ++i)
    CHECK_CLOSE(y[i], c[i] * x[i] * x[i], 1e-15, "split primal y[%d]", i);
  __enzyme_reverse((void *)scaled_squares, enzyme_nocache, y, dy, enzyme_nocache, x, dx, enzyme_nocache,
                   enzyme_const, c, enzyme_const, N, tape);
  for (int i = 0; i < N; ++i) {
    CHECK_CLOSE(dx[i], c[i] * 2 * x[i] * (1.0 + 0.1 * i), 1e-14, "split dx[%d]", i);
    CHECK_CLOSE(dy[i], 0.0, 1e-15, "split dy[%d] consumed", i);
  }
  for (int i = 0; i < N; ++i) {
    dx[i] = 0;
    dy[i] = 1.0;
  }
  __enzyme_autodiff_v((void *)scaled_squares, enzyme_nocache, enzyme_dup, y, dy, enzyme_nocache, x, dx,
                      enzyme_const, c, enzyme_const, N);
  for (int i = 0; i < N; ++i)
    CHECK_CLOSE(dx[i], c[i] * 2 * x[i], 1e-14, "autodiff dx[%d]", i);
  return check_report();
}
