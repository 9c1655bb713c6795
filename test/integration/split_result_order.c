// Enzyme convention: __enzyme_augmentfwd's declared result may list the primal result before the
// tape (`struct { double y; void *tape; }`, as Enzyme's own integration tests declare it). The two
// parts differ in type, so each field takes the part of its type; Synthase refused the struct
// before. Checked: the primal comes back in the double field, the tape in the pointer field, and
// __enzyme_reverse with that tape gives the gradient of __enzyme_autodiff and of central
// differences.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
#include "check.h"

#ifdef __cplusplus
extern "C" {
#endif
typedef struct {
  double y;
  void *tape;
} value_then_tape;
value_then_tape __enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);
#ifdef __cplusplus
}
#endif

static double bump(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += sin(x[i]) * exp(0.3 * x[(i + 1) % n]);
  return s * s;
}

static double bump_at(double *x, int n, int i, double h) {
  double keep = x[i];
  x[i] = keep + h;
  double v = bump(x, n);
  x[i] = keep;
  return v;
}

int main(void) {
  enum { N = 5 };
  double x[N] = {0.3, -1.1, 0.7, 2.0, -0.4}, dx[N] = {0}, gx[N] = {0};
  value_then_tape r = __enzyme_augmentfwd((void *)bump, enzyme_dup, x, dx, enzyme_const, N);
  CHECK_CLOSE(r.y, bump(x, N), 1e-15, "primal result in the double field");
  CHECK_TRUE(r.tape != 0, "tape in the pointer field");
  __enzyme_reverse((void *)bump, enzyme_dup, x, dx, enzyme_const, N, 1.0, r.tape);
  __enzyme_autodiff((void *)bump, enzyme_dup, x, gx, enzyme_const, N);
  for (int i = 0; i < N; ++i) {
    double fd = (bump_at(x, N, i, 1e-6) - bump_at(x, N, i, -1e-6)) / 2e-6;
    CHECK_CLOSE(dx[i], gx[i], 1e-12, "split gradient %d vs __enzyme_autodiff", i);
    CHECK_CLOSE(dx[i], fd, 1e-6, "split gradient %d vs central differences", i);
  }
  return check_report();
}
