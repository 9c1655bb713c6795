// Calls to defined functions: a helper called from several places with different activities
// (active, const, mixed), noinline helpers that stay calls at -O2, helpers writing through
// pointers, helpers returning structs, calls through a static function pointer constant, a
// deep call chain, a helper used both inside and outside the differentiated function.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -x c++ -O0 -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
#include "check.h"

#define NOINLINE __attribute__((noinline))

NOINLINE static double sq_sin(double a, double b) { return sin(a) * b * b; }

/* sq_sin called with (active, active), (active, const), (const, active), (const, const) */
static double uses(double x, double y) {
  double c = 0.75;
  return sq_sin(x, y) + sq_sin(x, c) + sq_sin(c, y) + sq_sin(c, c) + sq_sin(y, x);
}

/* helper writing through output pointers */
NOINLINE static void polar(double r, double th, double *px, double *py) {
  *px = r * cos(th);
  *py = r * sin(th);
}
static double use_polar(double r, double th) {
  double a, b, c, d;
  polar(r, th, &a, &b);
  polar(r * r, th * 0.5, &c, &d);
  return a * d - b * c + a * a;
}

/* helper returning a struct by value */
typedef struct {
  double re, im;
} Cplx;
NOINLINE static Cplx cmul(Cplx a, Cplx b) {
  Cplx r = {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
  return r;
}
static double cpow_abs(double x, double y) {
  Cplx z = {x, y}, acc = {1, 0};
  for (int i = 0; i < 5; ++i)
    acc = cmul(acc, z);
  return acc.re * acc.re + acc.im + acc.re;
}

/* deep chain */
NOINLINE static double l4(double v) { return exp(-v * v); }
NOINLINE static double l3(double v) { return l4(v) * v + l4(v * 0.5); }
NOINLINE static double l2(double v, double w) { return l3(v) * w + l3(w); }
NOINLINE static double l1(double v, double w) { return l2(v, w) + l2(w, v) * l3(v); }
static double chain(double x, double y) { return l1(x, y); }

/* helper with a pointer array argument used with const and dup arrays in the same function */
NOINLINE static double wdot(const double *a, const double *b, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += a[i] * b[i];
  return s;
}
static const double coeffs[4] = {0.5, -1.0, 2.0, 0.25};
static double quad(double *x) {
  double xx[4];
  for (int i = 0; i < 4; ++i)
    xx[i] = x[i] * x[i];
  return wdot(coeffs, x, 4) + wdot(x, xx, 4) + wdot(coeffs, coeffs, 4);
}

/* call through a function pointer known at compile time */
static double (*const fptr)(double, double) = sq_sin;
static double via_ptr(double x, double y) { return fptr(x, y) * fptr(y, x); }

int main(void) {
  check_seed(41);
  for (int t = 0; t < 8; ++t) {
    double x = check_uniform(-1.5, 1.5), y = check_uniform(-1.5, 1.5);
    CHECK_XY(uses, x, y, 1e-6);
    /* analytic for uses */
    double wx = cos(x) * y * y + cos(x) * 0.5625 + 2 * x * sin(y), wy = 2 * sin(x) * y + 2 * sin(0.75) * y + cos(y) * x * x;
    double fdg[2];
    check_fd_xy(uses, x, y, fdg);
    CHECK_CLOSE(fdg[0], wx, 1e-7, "ref uses dx");
    CHECK_CLOSE(fdg[1], wy, 1e-7, "ref uses dy");
    check_g2 g = __enzyme_autodiff_check_xy((void *)uses, x, y);
    CHECK_CLOSE(g.dx, wx, 1e-14, "rev uses dx analytic");
    CHECK_CLOSE(g.dy, wy, 1e-14, "rev uses dy analytic");
    CHECK_XY(use_polar, x + 2, y, 1e-6);
    CHECK_XY(cpow_abs, x * 0.5, y * 0.5, 1e-6);
    CHECK_XY(chain, x, y, 1e-6);
    CHECK_XY(via_ptr, x, y, 1e-6);
    /* the helper still works when called normally */
    CHECK_CLOSE(sq_sin(x, y), sin(x) * y * y, 1e-15, "primal helper");

    double v[4], dv[4];
    check_fill(v, 4, -1, 1);
    memset(dv, 0, sizeof dv);
    __enzyme_autodiff((void *)quad, v, dv);
    for (int i = 0; i < 4; ++i)
      CHECK_CLOSE(dv[i], coeffs[i] + 3 * v[i] * v[i], 1e-14, "rev quad d[%d]", i);
    double tv[4];
    check_fill(tv, 4, -1, 1);
    CHECK_CLOSE(__enzyme_fwddiff((void *)quad, v, tv), check_dot(dv, tv, 4), 1e-14, "fwd quad");
  }
  return check_report();
}
