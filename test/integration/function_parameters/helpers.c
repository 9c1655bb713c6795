// The differentiated function arrives as a parameter of the user's own helpers: `gradient(f, ...)`
// (visible to other modules), `directional(f, ...)` (static), a helper that only forwards f to
// another one, and two function parameters at once. Each helper is specialized per function its
// callers pass; gradients are checked against central differences, forward against reverse.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O0 -I%inputs %s -o %t4 -lm && %t4
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t5 -lm && %t5
#include "check.h"

typedef double (*Objective)(const double *, int);

static double wave(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += sin(x[i]) * x[(i + 1) % n];
  return s;
}
static double logprod(const double *x, int n) {
  double p = 1;
  for (int i = 0; i < n; i++)
    p *= 1 + x[i] * x[i];
  return log(p);
}
static double sum_exp(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += exp(-x[i] * (i + 1));
  return s;
}

/* Visible outside this file: becomes a dispatcher over its specializations. */
void gradient(Objective f, const double *x, double *g, int n) {
  memset(g, 0, n * sizeof *g);
  __enzyme_autodiff((void *)f, enzyme_dup, x, g, enzyme_const, n);
}
static double directional(Objective f, const double *x, const double *v, int n) {
  return __enzyme_fwddiff((void *)f, enzyme_dup, x, v, enzyme_const, n);
}
/* Forwards f: specialized one level further up. */
static void gradient_scaled(Objective f, double a, const double *x, double *g, int n) {
  gradient(f, x, g, n);
  for (int i = 0; i < n; i++)
    g[i] *= a;
}
/* Two function parameters: the gradient of f(x) + h(x). */
static void gradient_pair(Objective f, Objective h, const double *x, double *g, int n) {
  double gh[8] = {0};
  memset(g, 0, n * sizeof *g);
  __enzyme_autodiff((void *)f, enzyme_dup, x, g, enzyme_const, n);
  __enzyme_autodiff((void *)h, enzyme_dup, x, gh, enzyme_const, n);
  for (int i = 0; i < n; i++)
    g[i] += gh[i];
}

static double fd(Objective f, const double *x, int n, int i) {
  double xp[8], xm[8], h = 1e-6;
  memcpy(xp, x, n * sizeof *x);
  memcpy(xm, x, n * sizeof *x);
  xp[i] += h;
  xm[i] -= h;
  return (f(xp, n) - f(xm, n)) / (2 * h);
}

static void check_one(const char *name, Objective f, int n) {
  double x[8], g[8], gs[8];
  for (int i = 0; i < n; i++)
    x[i] = 0.3 + 0.1 * i;
  gradient(f, x, g, n);
  gradient_scaled(f, 2.0, x, gs, n);
  for (int i = 0; i < n; i++) {
    double v[8] = {0};
    v[i] = 1;
    double want = fd(f, x, n, i);
    CHECK_CLOSE(g[i], want, 1e-7, "%s: reverse d/dx%d", name, i);
    CHECK_CLOSE(gs[i], 2 * want, 1e-7, "%s: forwarded helper d/dx%d", name, i);
    CHECK_CLOSE(directional(f, x, v, n), g[i], 1e-12, "%s: forward = reverse, d/dx%d", name, i);
  }
}

int main(void) {
  check_one("wave", wave, 5);
  check_one("logprod", logprod, 6);
  check_one("sum_exp", sum_exp, 4);
  double x[6] = {0.2, -0.4, 0.6, 0.1, 0.9, -0.3}, g[6];
  gradient_pair(wave, logprod, x, g, 6);
  for (int i = 0; i < 6; i++)
    CHECK_CLOSE(g[i], fd(wave, x, 6, i) + fd(logprod, x, 6, i), 1e-7, "pair d/dx%d", i);
  return check_report();
}
