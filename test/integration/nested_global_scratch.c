// Second-order derivatives of functions that keep intermediate values in global memory: a static
// array, a global `double *` allocated in main, and a function-static pointer allocated on first
// use. The outer derivative differentiates the inner one's adjoints in the global's shadow, so
// it needs shadows of its own (before: forward over reverse shared the first-order shadow and
// the Hessian was silently wrong; a heap-pointer global made every second-order derivative in
// the file fail to compile, even of a function that never touched it).
// Each nesting (fwd∘rev, rev∘rev, rev∘fwd, fwd∘fwd, and fwd∘fwd∘rev for a third derivative) is
// compared with the analytic Hessian (1e-12), twice in a row (the shadows start fresh per call).
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t5 -lm && %t5
#include "check.h"

/* f(x) = x0^2 x1 x2 + sin(x0) x2 + x1^2 x2^2, through three scratch values w */
#define BODY(w)                                                                                    \
  w[0] = x[0] * x[0];                                                                              \
  w[1] = x[1] * x[2];                                                                              \
  w[2] = sin(x[0]);                                                                                \
  return w[0] * w[1] + w[2] * x[2] + w[1] * w[1];

static double sa[3];
static double f_array(const double *x) { BODY(sa) }

static double *gp;
static double f_heap(const double *x) { BODY(gp) }

static double f_lazy(const double *x) {
  static double *w = NULL;
  if (!w)
    w = (double *)malloc(3 * sizeof(double));
  BODY(w)
}

/* touches no global: its Hessian must compile next to the others */
static double f_plain(const double *x) { return x[0] * x[0] * x[1] * x[2] + sin(x[0]) * x[2] + x[1] * x[1] * x[2] * x[2]; }

static void hessian(const double *x, double H[3][3]) {
  H[0][0] = 2 * x[1] * x[2] - sin(x[0]) * x[2];
  H[0][1] = H[1][0] = 2 * x[0] * x[2];
  H[0][2] = H[2][0] = 2 * x[0] * x[1] + cos(x[0]);
  H[1][1] = 2 * x[2] * x[2];
  H[1][2] = H[2][1] = x[0] * x[0] + 4 * x[1] * x[2];
  H[2][2] = 2 * x[1] * x[1];
}

/* d^3 f / dx0^3 along e0 twice: contracted third derivative T[0][0][i] */
static void third(const double *x, double T[3]) {
  T[0] = -cos(x[0]) * x[2];
  T[1] = 2 * x[2];
  T[2] = 2 * x[1] - sin(x[0]);
}

#define DEFINE_NESTINGS(F)                                                                         \
  static void F##_grad(const double *x, double *dx) {                                              \
    for (int i = 0; i < 3; ++i)                                                                    \
      dx[i] = 0;                                                                                   \
    __enzyme_autodiff((void *)F, enzyme_dup, x, dx);                                               \
  }                                                                                                \
  static double F##_jvp(const double *x, const double *v) {                                        \
    return __enzyme_fwddiff((void *)F, enzyme_dup, x, v);                                          \
  }                                                                                                \
  static void F##_hvp(const double *x, const double *v, double *hv) {                              \
    double dx[3];                                                                                  \
    __enzyme_fwddiff((void *)F##_grad, enzyme_dup, x, v, enzyme_dup, dx, hv);                      \
  }                                                                                                \
  static void F##_col(int which, const double *x, int j, double *col) {                            \
    double v[3] = {0, 0, 0}, dx[3], out[3] = {0, 0, 0};                                            \
    v[j] = 1;                                                                                      \
    if (which == 0) {                                                                              \
      F##_hvp(x, v, out);                                                                          \
    } else if (which == 1) {                                                                       \
      double seed[3] = {0, 0, 0};                                                                  \
      seed[j] = 1;                                                                                 \
      __enzyme_autodiff((void *)F##_grad, enzyme_dup, x, out, enzyme_dup, dx, seed);               \
    } else if (which == 2) {                                                                       \
      double dv[3] = {0, 0, 0};                                                                    \
      __enzyme_autodiff((void *)F##_jvp, enzyme_dup, x, out, enzyme_dup, v, dv);                   \
    } else {                                                                                       \
      for (int i = 0; i < 3; ++i) {                                                                \
        double e[3] = {0, 0, 0};                                                                   \
        e[i] = 1;                                                                                  \
        out[i] = __enzyme_fwddiff((void *)F##_jvp, enzyme_dup, x, e, enzyme_const, v);             \
      }                                                                                            \
    }                                                                                              \
    for (int i = 0; i < 3; ++i)                                                                    \
      col[i] = out[i];                                                                             \
  }                                                                                                \
  static void F##_third(const double *x, double *t) {                                              \
    double e[3] = {1, 0, 0}, hv[3], dhv[3] = {0, 0, 0};                                            \
    __enzyme_fwddiff((void *)F##_hvp, enzyme_dup, x, e, enzyme_const, e, enzyme_dup, hv, dhv);     \
    for (int i = 0; i < 3; ++i)                                                                    \
      t[i] = dhv[i];                                                                               \
  }

DEFINE_NESTINGS(f_array)
DEFINE_NESTINGS(f_heap)
DEFINE_NESTINGS(f_lazy)
DEFINE_NESTINGS(f_plain)

typedef void (*col_fn)(int, const double *, int, double *);
typedef void (*third_fn)(const double *, double *);

static void check_all(const char *name, col_fn col, third_fn thd, const double *x) {
  static const char *nest[] = {"fwd∘rev", "rev∘rev", "rev∘fwd", "fwd∘fwd"};
  double H[3][3], T[3], c[3], t[3];
  hessian(x, H);
  third(x, T);
  for (int round = 0; round < 2; ++round) {
    for (int which = 0; which < 4; ++which)
      for (int j = 0; j < 3; ++j) {
        col(which, x, j, c);
        for (int i = 0; i < 3; ++i)
          CHECK_CLOSE(c[i], H[i][j], 1e-12, "%s %s H[%d][%d] round %d", name, nest[which], i, j, round);
      }
    thd(x, t);
    for (int i = 0; i < 3; ++i)
      CHECK_CLOSE(t[i], T[i], 1e-12, "%s fwd∘fwd∘rev T[0][0][%d] round %d", name, i, round);
  }
}

int main(void) {
  gp = (double *)malloc(3 * sizeof(double));
  const double pts[2][3] = {{0.7, -1.3, 0.4}, {1.9, 0.5, -2.2}};
  for (int p = 0; p < 2; ++p) {
    check_all("static array", f_array_col, f_array_third, pts[p]);
    check_all("global heap pointer", f_heap_col, f_heap_third, pts[p]);
    check_all("lazy static pointer", f_lazy_col, f_lazy_third, pts[p]);
    check_all("no global", f_plain_col, f_plain_third, pts[p]);
  }
  free(gp);
  return check_report();
}
