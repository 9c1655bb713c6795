// Recursion: self-recursive power/series, recursive reduction of an array (divide and conquer),
// mutual recursion, recursion depth from active-independent data, a recursive tree evaluation.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -x c++ -O0 -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
#include "check.h"

/* x^n by repeated squaring, recursively */
static double rpow(double x, int n) {
  if (n == 0)
    return 1.0;
  double h = rpow(x, n / 2);
  return n % 2 ? h * h * x : h * h;
}

/* continued fraction x / (1 + x / (1 + x / ...)) of depth d */
static double cfrac(double x, double y, int d) {
  if (d == 0)
    return y;
  return x / (1.0 + cfrac(x, y, d - 1));
}
static double cfrac8(double x, double y) { return cfrac(x, y, 8); }

/* pairwise (tree) sum of f(x[i]) */
static double tree_sum(const double *x, int n) {
  if (n == 1)
    return sin(x[0]) * x[0];
  int h = n / 2;
  double a = tree_sum(x, h), b = tree_sum(x + h, n - h);
  return a + b + 0.1 * a * b;
}

/* mutual recursion */
static double odd_f(double x, int n);
static double even_f(double x, int n) { return n == 0 ? x : cos(odd_f(x, n - 1)) + x; }
static double odd_f(double x, int n) { return n == 0 ? x * x : sin(even_f(x, n - 1)) * x; }
static double mutual(double x, double y) { return even_f(x, 6) * y + odd_f(y, 5); }

/* recursion writing into an array through a pointer */
static void rfill(double *out, double x, int n) {
  if (n == 0)
    return;
  out[0] = x;
  rfill(out + 1, x * x * 0.5 + 0.25, n - 1);
}
static double rfill_use(double x, double y) {
  double buf[6];
  rfill(buf, x, 6);
  double s = 0;
  for (int i = 0; i < 6; ++i)
    s += buf[i] * y;
  return s;
}

#define N 11
static double tree_fd(const double *x, void *c) { (void)c; return tree_sum(x, N); }

int main(void) {
  check_seed(37);
  for (int t = 0; t < 6; ++t) {
    double x = check_uniform(-1.2, 1.2), y = check_uniform(0.2, 1.2);
    for (int n = 0; n < 12; n += 3) {
      double want = n == 0 ? 0.0 : n * pow(x, n - 1);
      CHECK_CLOSE(__enzyme_autodiff((void *)rpow, x, n), want, 1e-13, "rev rpow n=%d", n);
      CHECK_CLOSE(__enzyme_fwddiff((void *)rpow, x, 1.0, n), want, 1e-13, "fwd rpow n=%d", n);
    }
    CHECK_XY(cfrac8, fabs(x) + 0.1, y, 1e-6);
    CHECK_XY(mutual, x, y, 1e-6);
    CHECK_XY(rfill_use, x, y, 1e-6);

    double a[N], da[N], g[N], v[N];
    check_fill(a, N, -1, 1);
    memset(da, 0, sizeof da);
    __enzyme_autodiff((void *)tree_sum, a, da, N);
    check_fd_grad(tree_fd, 0, a, N, g);
    for (int i = 0; i < N; ++i)
      CHECK_CLOSE(da[i], g[i], 1e-7, "rev tree_sum d[%d] vs FD", i);
    check_fill(v, N, -1, 1);
    double tf = __enzyme_fwddiff((void *)tree_sum, a, v, N);
    CHECK_CLOSE(tf, check_dot(da, v, N), 1e-12, "tree_sum dot test");
  }
  return check_report();
}
