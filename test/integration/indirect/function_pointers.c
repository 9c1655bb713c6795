// Function pointers on active data: a table of functions (user functions and libm's sin/exp,
// which have no body here) selected by a run-time index; a callback passed as an argument
// (an integrator taking double (*)(double, void *) and a context with active parameters); a
// callback that is a recursive chain through a pointer. Both modes against central differences;
// forward and reverse agree.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -x c++ -O0 -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
// RUN: %synthase-cxx -x c++ -O3 -march=native -I%inputs %s -o %t5 -lm && %t5
#include "check.h"

typedef double (*unary)(double);
static double sq(double x) { return x * x; }
static double cube(double x) { return x * x * x; }
static unary table[4] = {sq, cube, sin, exp};

/* Which function runs is read from memory at run time. */
static double apply(const int *which, int n, double x) {
  double s = 0;
  for (int i = 0; i < n; i++) s += table[which[i]](x * (i + 1));
  return s;
}

/* A callback with a context, as numerical libraries take it. */
typedef double (*integrand)(double, void *);
typedef struct { double k, w; } params;
static double damped(double t, void *c) {
  params *p = (params *)c;
  return exp(-p->k * t) * sin(p->w * t);
}
static double gauss(double t, void *c) {
  params *p = (params *)c;
  return exp(-p->k * t * t) * p->w;
}
__attribute__((noinline)) double integrate(integrand f, void *ctx, double a, double b, int n) {
  double h = (b - a) / n, s = 0.5 * (f(a, ctx) + f(b, ctx));
  for (int i = 1; i < n; i++) s += f(a + i * h, ctx);
  return s * h;
}

static int which_g[6] = {0, 2, 1, 3, 2, 0};
static double apply_fd(double x, void *c) { (void)c; return apply(which_g, 6, x); }
static integrand chosen;
static double integrate_fd(const double *kw, void *c) {
  (void)c;
  params p = {kw[0], kw[1]};
  return integrate(chosen, &p, 0.0, 2.0, 50);
}

int main(void) {
  double x = 0.37;
  double d = __enzyme_autodiff((void *)apply, enzyme_const, which_g, enzyme_const, 6, enzyme_out, x);
  double fd = check_fd(apply_fd, NULL, x);
  CHECK_CLOSE(d, fd, 1e-7, "table: reverse vs FD");
  double t = __enzyme_fwddiff((void *)apply, enzyme_const, which_g, enzyme_const, 6, enzyme_dup, x, 1.0);
  CHECK_CLOSE(t, d, 1e-12, "table: forward = reverse");
  double want = 0;
  for (int i = 0; i < 6; i++) {
    double y = x * (i + 1), c = i + 1;
    want += c * (which_g[i] == 0 ? 2 * y : which_g[i] == 1 ? 3 * y * y : which_g[i] == 2 ? cos(y) : exp(y));
  }
  CHECK_CLOSE(d, want, 1e-12, "table: analytic");

  integrand fs[2] = {damped, gauss};
  for (int k = 0; k < 2; k++) {
    params p = {0.8, 2.5}, dp = {0, 0};
    chosen = fs[k];
    __enzyme_autodiff((void *)integrate, enzyme_const, fs[k], enzyme_dup, &p, &dp, enzyme_const, 0.0,
                      enzyme_const, 2.0, enzyme_const, 50);
    double kw[2] = {p.k, p.w}, g[2];
    check_fd_grad(integrate_fd, NULL, kw, 2, g);
    CHECK_CLOSE(dp.k, g[0], 1e-7, "callback %d: d/dk", k);
    CHECK_CLOSE(dp.w, g[1], 1e-7, "callback %d: d/dw", k);
    params v = {0.3, -0.7};
    double tf = __enzyme_fwddiff((void *)integrate, enzyme_const, fs[k], enzyme_dup, &p, &v, enzyme_const, 0.0,
                                 enzyme_const, 2.0, enzyme_const, 50);
    CHECK_CLOSE(tf, 0.3 * dp.k - 0.7 * dp.w, 1e-12, "callback %d: forward = <grad, v>", k);
  }
  return check_report();
}
