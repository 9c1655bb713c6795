// Code built with -ffp-model=strict, -frounding-math or -ffp-exception-behavior=maytrap uses
// LLVM's constrained floating-point intrinsics for every operation (all were refused: "no
// derivative rule"), and -ffast-math turns modf, frexp and sin/cos pairs into llvm.modf,
// llvm.frexp and llvm.sincos. The derivative is computed in the default floating-point
// environment. Gradients against closed forms and central differences, forward against reverse.
// RUN: %synthase-cc -O2 -ffp-model=strict -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O0 -frounding-math -I%inputs %s -o %t1 -lm && %t1
// RUN: %synthase-cc -O2 -ffp-exception-behavior=maytrap -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O2 -ffast-math -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cc -O0 -I%inputs %s -o %t4 -lm && %t4
#define _GNU_SOURCE
#include "check.h"

#define N 4

// Arithmetic, a conversion to long double and back, a comparison, sqrt, fma, exp and a cast to
// an integer (piecewise constant).
static double mixed(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double v = x[i] * x[i] / (1.5 + x[i] * x[i]) - x[i];
    long double f = 0.25L * x[i];
    double w = v > 0 ? sqrt(v + 1) : fma(x[i], x[i], 2.0);
    s += w * (double)f + exp(0.5 * x[i]) + (long)(3 * x[i]);
  }
  return s;
}

// modf, frexp and sincos, as -ffast-math lowers them.
static double pieces(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double cell, sn, cs;
    double frac = modf(4 * x[i] + 10, &cell);
    int e;
    double m = frexp(3 * x[i] + 7, &e);
    sincos(x[i], &sn, &cs);
    s += frac * frac * (cell - 9) + m * e + sn * cs * x[i];
  }
  return s;
}

typedef double (*fn)(const double *, int);
static double fd_of(const double *x, void *f) { return ((fn)f)(x, N); }

static void check(fn f, const char *name) {
  double x[N], dx[N] = {0}, g[N], v[N];
  check_fill(x, N, -1, 1);
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N);
  check_fd_grad(fd_of, (void *)f, x, N, g);
  for (int k = 0; k < N; k++)
    CHECK_CLOSE(dx[k], g[k], 1e-6, "%s: reverse d/dx%d vs FD", name, k);
  check_fill(v, N, -1, 1);
  double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, v, enzyme_const, N);
  CHECK_CLOSE(t, check_dot(g, v, N), 1e-6, "%s: forward vs FD", name);
  CHECK_CLOSE(t, check_dot(dx, v, N), 1e-12, "%s: forward vs reverse", name);
}

static double poly(double x) { return x * x * x - 2 * x / (x + 3); }

int main(void) {
  check_seed(5);
  check(mixed, "constrained arithmetic");
  check(pieces, "modf, frexp, sincos");
  double x = 0.7;
  CHECK_CLOSE(__enzyme_autodiff((void *)poly, x), 3 * x * x - 6 / ((x + 3) * (x + 3)), 1e-14, "closed form");
  return check_report();
}
