// Builds for the debugger: -Og and -fextend-variable-liveness keep variables alive with
// `llvm.fake.use` markers, which carry no value and must not stop either mode (forward mode
// refused them with "no derivative rule" before). Each function is checked against its analytic
// derivative at 1e-12, reverse against finite differences, forward (one and two directions at
// once) against reverse.
// RUN: %synthase-cc -Og -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -Og -g -I%inputs %s -o %t1 -lm && %t1
// RUN: %synthase-cc -O2 -fextend-variable-liveness -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -x c++ -Og -I%inputs %s -o %t3 -lm && %t3
#include "check.h"

static double horner(double p) {
  double x = 0.5;
  for (int i = 0; i < 3; i++)
    x = x * p + 1;
  return x;
}

static double energy(const double *v, int n) {
  double s = 0, prev = 0;
  for (int i = 0; i < n; i++) {
    double d = v[i] - prev;
    s += d * d + sin(v[i]);
    prev = v[i];
  }
  return s;
}

typedef struct { double d[2]; } T2;
T2 __enzyme_fwddiff_w2(void *, ...);

static double energy_fd(const double *v, void *ctx) { return energy(v, *(int *)ctx); }

int main(void) {
  volatile double pv = 0.5;
  double p = pv;
  double want = 1.5 * p * p + 2 * p + 1;
  CHECK_CLOSE(__enzyme_fwddiff((void *)horner, p, 1.0), want, 1e-12, "horner fwd");
  CHECK_CLOSE(__enzyme_autodiff((void *)horner, p), want, 1e-12, "horner rev");

  enum { N = 5 };
  int n = N;
  double v[N], g[N] = {0}, fd[N];
  for (int i = 0; i < N; i++)
    v[i] = 0.3 * i - 0.4;
  __enzyme_autodiff((void *)energy, enzyme_dup, v, g, enzyme_const, n);
  check_fd_grad(energy_fd, &n, v, N, fd);
  for (int i = 0; i < N; i++) {
    double d = (v[i] - (i ? v[i - 1] : 0)), dn = i + 1 < N ? v[i + 1] - v[i] : 0;
    CHECK_CLOSE(g[i], 2 * d - 2 * dn + cos(v[i]), 1e-12, "energy rev [%d]", i);
    CHECK_CLOSE(g[i], fd[i], 1e-6, "energy rev vs fd [%d]", i);
    double e[N] = {0};
    e[i] = 1;
    CHECK_CLOSE(__enzyme_fwddiff((void *)energy, enzyme_dup, v, e, enzyme_const, n), g[i], 1e-12,
                "energy fwd vs rev [%d]", i);
  }
  // Two directions at once (vector forward mode), against the gradient.
  double e0[N], e1[N];
  for (int i = 0; i < N; i++)
    e0[i] = 1, e1[i] = i - 2;
  T2 t = __enzyme_fwddiff_w2((void *)energy, enzyme_width, 2, enzyme_dup, v, e0, e1, enzyme_const, n);
  CHECK_CLOSE(t.d[0], check_dot(g, e0, N), 1e-12, "energy fwd width 2, lane 0");
  CHECK_CLOSE(t.d[1], check_dot(g, e1, N), 1e-12, "energy fwd width 2, lane 1");
  return check_report();
}
