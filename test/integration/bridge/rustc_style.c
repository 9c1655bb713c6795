// IR written the way rustc's autodiff bridge emits it (metadata markers, slices as ptr+len, an
// Active return with enzyme_primal_return, Dual width 2, Dualv, DuplicatedOnly), linked with this
// C driver: the derivatives must match the analytic ones.
// RUN: %synthase-cc -O0 -I%inputs %S/Inputs/rustc_style.ll %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %S/Inputs/rustc_style.ll %s -o %t2 -lm && %t2
#include "check.h"

typedef struct { double a, b; } Pair;
Pair dsquare(double x, double seed);
void dsumsq(const double *a, long n, double *da, long dn);
Pair dx2y(double x, double dx0, double dx1, double y, double dy0, double dy1);
Pair dsumsq_w2(const double *a, long n, const double *da0, long dn0, const double *da1, long dn1);
Pair dsumsq_v(const double *a, long n, const double *da, long dn);
double dstore_sq(double *out, double *dout, double x);

int main(void) {
  Pair s = dsquare(3.0, 2.0);
  CHECK_CLOSE(s.a, 9.0, 1e-12, "dsquare primal");
  CHECK_CLOSE(s.b, 12.0, 1e-12, "dsquare seed * 2x");

  double a[4] = {1.0, -2.0, 0.5, 3.0};
  double da[4] = {10.0, 0.0, 0.0, 0.0}; /* reverse mode adds into the shadow */
  dsumsq(a, 4, da, 4);
  CHECK_CLOSE(da[0], 10.0 + 2.0, 1e-12, "dsumsq[0] accumulates");
  for (int i = 1; i < 4; ++i)
    CHECK_CLOSE(da[i], 2.0 * a[i], 1e-12, "dsumsq[%d]", i);

  /* d(x^2 y) = 2xy dx + x^2 dy, along (1, 0) and (0, 1) */
  Pair t = dx2y(1.5, 1.0, 0.0, -2.0, 0.0, 1.0);
  CHECK_CLOSE(t.a, 2.0 * 1.5 * -2.0, 1e-12, "dx2y lane 0");
  CHECK_CLOSE(t.b, 1.5 * 1.5, 1e-12, "dx2y lane 1");

  double e0[4] = {1, 0, 0, 0}, ones[4] = {1, 1, 1, 1};
  Pair w = dsumsq_w2(a, 4, e0, 4, ones, 4);
  CHECK_CLOSE(w.a, 2.0 * a[0], 1e-12, "dsumsq_w2 lane 0");
  CHECK_CLOSE(w.b, 2.0 * (a[0] + a[1] + a[2] + a[3]), 1e-12, "dsumsq_w2 lane 1");

  double dv[8] = {0, 0, 0, 1, /* lane 1: */ 0, 1, 0, 0};
  Pair v = dsumsq_v(a, 4, dv, 8);
  CHECK_CLOSE(v.a, 2.0 * a[3], 1e-12, "dsumsq_v lane 0");
  CHECK_CLOSE(v.b, 2.0 * a[1], 1e-12, "dsumsq_v lane 1");

  double out = 0.0, dout = 1.0;
  double dx = dstore_sq(&out, &dout, 2.0);
  CHECK_CLOSE(dx, 12.0, 1e-12, "dstore_sq: d(3x^2)/dx through dout");
  return check_report();
}
