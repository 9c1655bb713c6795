/* Shared helpers for Synthase's numeric integration programs (C and C++).
 *
 * Every program compares derivatives computed by the plugin with analytic values or central
 * finite differences, prints one line per mismatch and ends with `return check_report();`, which
 * prints a summary and returns non-zero when any check failed.
 *
 *   CHECK_CLOSE(got, want, tol, "fmt", ...)  relative error |got-want| / max(1, |got|+|want|) <= tol
 *   CHECK_TRUE(cond, "fmt", ...)
 *   check_fd(f, ctx, x)                      central difference of double f(double, void*)
 *   check_fd_grad(f, ctx, x, n, g)           gradient of double f(const double*, void*) by FD
 *   check_fd_jvp(f, ctx, x, n, v, m, out)    J(x)*v of void f(const double*, double*, void*) by FD
 *   check_fd_l / check_fd_f                  scalar FD in long double / float-through-double
 *   check_seed(s); check_uniform(lo, hi)     tiny deterministic RNG (xorshift64*)
 *   check_dot(a, b, n)                       <a, b>
 *   check_gradient_n(f, n, name, fd_tol)     double f(const double*, int): rev vs FD, fwd vs both
 *
 * Also declares the Enzyme entry points and markers every program uses. Programs declare extra
 * entry points (struct returns, typed prototypes, name suffixes) themselves.
 */
#ifndef SYNTHASE_TEST_CHECK_H
#define SYNTHASE_TEST_CHECK_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Markers: declared, never defined (the plugin removes every use). */
extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed, enzyme_width, enzyme_dupv,
    enzyme_dupnoneedv;

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
/* The largest tape of any gradient call so far (bytes), kept by -mllvm -synthase-tape-stats. */
extern long __synthase_tape_peak_v1;

#ifdef __cplusplus
}
#endif

static int check_failures_ = 0;
static int check_count_ = 0;
static int check_verbose_ = -1;

static inline int check_verbose(void) {
  if (check_verbose_ < 0) {
    const char *e = getenv("CHECK_VERBOSE");
    check_verbose_ = e && *e && *e != '0';
  }
  return check_verbose_;
}

/* Non-finite test by bits, so it survives -ffast-math (which folds isnan/isinf to false). */
static inline int check_nonfinite(long double v) {
  volatile double d = (double)v;
  unsigned long long b;
  double dd = d;
  memcpy(&b, &dd, sizeof b);
  return ((b >> 52) & 0x7ff) == 0x7ff;
}

/* Relative error in the ADBench sense: |a-b| / max(1, |a|+|b|). NaN or infinity: 1e300, so it
   fails any tolerance (unless both are the identical infinity). */
static inline long double check_relerr(long double got, long double want) {
  if (check_nonfinite(got) || check_nonfinite(want)) {
    volatile double g = (double)got, w = (double)want;
    double gg = g, ww = w;
    return (!check_nonfinite(gg) || !check_nonfinite(ww) || memcmp(&gg, &ww, sizeof gg)) ? 1e300L
                                                                                          : 0.0L;
  }
  long double d = fabsl(got - want);
  long double s = fabsl(got) + fabsl(want);
  return d / (s > 1.0L ? s : 1.0L);
}

static inline int check_close_at(const char *file, int line, long double got, long double want,
                                 double tol, const char *fmt, ...) {
  ++check_count_;
  long double err = check_relerr(got, want);
  int ok = err <= tol;
  if (!ok || check_verbose()) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s:%d: %s: ", file, line, ok ? "ok" : "MISMATCH");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, ": got %.17Lg want %.17Lg (relerr %.3Lg, tol %.3g)\n", got, want, err, tol);
    va_end(ap);
  }
  if (!ok)
    ++check_failures_;
  return ok;
}

static inline int check_true_at(const char *file, int line, int cond, const char *fmt, ...) {
  ++check_count_;
  if (!cond || check_verbose()) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s:%d: %s: ", file, line, cond ? "ok" : "FAILED");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
  }
  if (!cond)
    ++check_failures_;
  return cond;
}

#define CHECK_CLOSE(got, want, tol, ...) \
  check_close_at(__FILE__, __LINE__, (long double)(got), (long double)(want), (tol), __VA_ARGS__)
#define CHECK_TRUE(cond, ...) check_true_at(__FILE__, __LINE__, !!(cond), __VA_ARGS__)

/* Prints a summary line; the program returns its value. */
static inline int check_report(void) {
  if (check_failures_)
    fprintf(stderr, "%d of %d checks FAILED\n", check_failures_, check_count_);
  else if (check_verbose())
    fprintf(stderr, "all %d checks passed\n", check_count_);
  return check_failures_ ? 1 : 0;
}

/* ---- deterministic RNG ---- */
static unsigned long long check_rng_state_ = 0x9E3779B97F4A7C15ull;
static inline void check_seed(unsigned long long s) {
  check_rng_state_ = s * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
  if (!check_rng_state_)
    check_rng_state_ = 1;
}
static inline unsigned long long check_next(void) {
  unsigned long long x = check_rng_state_;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  check_rng_state_ = x;
  return x * 0x2545F4914F6CDD1Dull;
}
/* Uniform in [lo, hi). */
static inline double check_uniform(double lo, double hi) {
  return lo + (hi - lo) * ((double)(check_next() >> 11) * (1.0 / 9007199254740992.0));
}
static inline void check_fill(double *a, int n, double lo, double hi) {
  for (int i = 0; i < n; ++i)
    a[i] = check_uniform(lo, hi);
}

static inline double check_dot(const double *a, const double *b, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += a[i] * b[i];
  return s;
}

/* ---- central finite differences ---- */
/* Step relative to |x|: error O(h^2) truncation + O(eps/h) rounding, about 1e-10 relative. */
static inline double check_step(double x) { return 1e-5 * (fabs(x) > 1.0 ? fabs(x) : 1.0); }

typedef double (*check_fn1)(double, void *);
static inline double check_fd(check_fn1 f, void *ctx, double x) {
  double h = check_step(x);
  volatile double xp = x + h, xm = x - h; /* exact representable step */
  return (f(xp, ctx) - f(xm, ctx)) / (xp - xm);
}

/* Long double FD: smaller step, long double arithmetic. */
typedef long double (*check_fn1l)(long double, void *);
static inline long double check_fd_l(check_fn1l f, void *ctx, long double x) {
  long double h = 1e-6L * (fabsl(x) > 1.0L ? fabsl(x) : 1.0L);
  volatile long double xp = x + h, xm = x - h;
  return (f(xp, ctx) - f(xm, ctx)) / (xp - xm);
}

typedef double (*check_fnn)(const double *, void *);
/* Gradient of f at x (n entries) into g. x is restored. */
static inline void check_fd_grad(check_fnn f, void *ctx, const double *x, int n, double *g) {
  double *t = (double *)malloc(sizeof(double) * (n > 0 ? n : 1));
  memcpy(t, x, sizeof(double) * n);
  for (int i = 0; i < n; ++i) {
    double h = check_step(x[i]);
    t[i] = x[i] + h;
    double fp = f(t, ctx);
    double xp = t[i];
    t[i] = x[i] - h;
    double fm = f(t, ctx);
    double xm = t[i];
    t[i] = x[i];
    g[i] = (fp - fm) / (xp - xm);
  }
  free(t);
}

typedef void (*check_fnv)(const double *, double *, void *);
/* Jacobian-vector product J(x) v of f: R^n -> R^m by central differences along v. */
static inline void check_fd_jvp(check_fnv f, void *ctx, const double *x, int n, const double *v,
                                int m, double *out) {
  double *t = (double *)malloc(sizeof(double) * (n > 0 ? n : 1));
  double *yp = (double *)malloc(sizeof(double) * (m > 0 ? m : 1));
  double *ym = (double *)malloc(sizeof(double) * (m > 0 ? m : 1));
  double nx = 0, nv = 0;
  for (int i = 0; i < n; ++i) {
    nx += x[i] * x[i];
    nv += v[i] * v[i];
  }
  double h = 1e-5 * (sqrt(nx) > 1 ? sqrt(nx) : 1) / (sqrt(nv) > 0 ? sqrt(nv) : 1);
  for (int i = 0; i < n; ++i)
    t[i] = x[i] + h * v[i];
  f(t, yp, ctx);
  for (int i = 0; i < n; ++i)
    t[i] = x[i] - h * v[i];
  f(t, ym, ctx);
  for (int j = 0; j < m; ++j)
    out[j] = (yp[j] - ym[j]) / (2 * h);
  free(t);
  free(yp);
  free(ym);
}

/* ---- one-call check for double f(const double *x, int n) ----
 * check_gradient_n(f, n, name, fd_tol): the reverse gradient at a random x against central
 * differences (tolerance fd_tol), the forward derivative along a random direction against the
 * differences and against the reverse gradient (1e-11). */
typedef double (*check_fn_n)(const double *, int);
typedef struct { check_fn_n f; int n; } check_fn_n_ctx;
static inline double check_fn_n_tramp(const double *x, void *c) {
  check_fn_n_ctx *k = (check_fn_n_ctx *)c;
  return k->f(x, k->n);
}
static inline void check_gradient_n(check_fn_n f, int n, const char *name, double fd_tol) {
  size_t bytes = sizeof(double) * (n > 0 ? n : 1);
  double *x = (double *)malloc(bytes), *dx = (double *)calloc(n > 0 ? n : 1, sizeof(double));
  double *g = (double *)malloc(bytes), *v = (double *)malloc(bytes);
  check_fn_n_ctx ctx = {f, n};
  check_fill(x, n, -1, 1);
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n);
  check_fd_grad(check_fn_n_tramp, &ctx, x, n, g);
  for (int k = 0; k < n; k++)
    CHECK_CLOSE(dx[k], g[k], fd_tol, "%s: reverse d/dx%d vs FD", name, k);
  check_fill(v, n, -1, 1);
  double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, v, enzyme_const, n);
  CHECK_CLOSE(t, check_dot(g, v, n), fd_tol, "%s: forward vs FD", name);
  CHECK_CLOSE(t, check_dot(dx, v, n), 1e-11, "%s: forward vs reverse", name);
  free(x);
  free(dx);
  free(g);
  free(v);
}

/* ---- one-call checks for double f(double) and double f(double, double) ----
 * CHECK_X(f, x, tol):     reverse and forward derivative vs. central differences (tolerance tol),
 *                         forward with tangent 1 and with a random tangent.
 * CHECK_XY(f, x, y, tol): gradient by reverse mode vs. FD; forward along a random (vx, vy) vs. FD;
 *                         dot-product test forward vs. reverse to 1e-12. */
typedef struct { double dx, dy; } check_g2;
#ifdef __cplusplus
extern "C" {
#endif
check_g2 __enzyme_autodiff_check_xy(void *, ...);
#ifdef __cplusplus
}
#endif
typedef double (*check_fx)(double);
typedef double (*check_fxy)(double, double);
static inline double check_fx_tramp(double x, void *c) { return (*(check_fx *)c)(x); }
static inline double check_fd_x(check_fx f, double x) { return check_fd(check_fx_tramp, &f, x); }
typedef struct { check_fxy f; double other; } check_xy_ctx;
static inline double check_fxy_trx(double x, void *c) {
  check_xy_ctx *k = (check_xy_ctx *)c;
  return k->f(x, k->other);
}
static inline double check_fxy_try(double y, void *c) {
  check_xy_ctx *k = (check_xy_ctx *)c;
  return k->f(k->other, y);
}
static inline void check_fd_xy(check_fxy f, double x, double y, double *g) {
  check_xy_ctx k;
  k.f = f;
  k.other = y;
  g[0] = check_fd(check_fxy_trx, &k, x);
  k.other = x;
  g[1] = check_fd(check_fxy_try, &k, y);
}

#define CHECK_X(f, x, tol)                                                                         \
  do {                                                                                             \
    double x_ = (x);                                                                               \
    double fd_ = check_fd_x(f, x_);                                                                \
    double v_ = check_uniform(-2, 2);                                                              \
    double r_ = __enzyme_autodiff((void *)f, x_);                                                  \
    CHECK_CLOSE(r_, fd_, tol, "rev %s x=%.17g (vs FD)", #f, x_);                                   \
    CHECK_CLOSE(__enzyme_fwddiff((void *)f, x_, 1.0), fd_, tol, "fwd %s x=%.17g (vs FD)", #f, x_); \
    CHECK_CLOSE(__enzyme_fwddiff((void *)f, x_, v_), r_ * v_, 1e-12, "fwd/rev %s x=%.17g", #f, x_); \
  } while (0)

#define CHECK_XY(f, x, y, tol)                                                                     \
  do {                                                                                             \
    double x_ = (x), y_ = (y), fd_[2];                                                             \
    check_fd_xy(f, x_, y_, fd_);                                                                   \
    check_g2 g_ = __enzyme_autodiff_check_xy((void *)f, x_, y_);                                   \
    CHECK_CLOSE(g_.dx, fd_[0], tol, "rev %s d/dx x=%.17g y=%.17g (vs FD)", #f, x_, y_);            \
    CHECK_CLOSE(g_.dy, fd_[1], tol, "rev %s d/dy x=%.17g y=%.17g (vs FD)", #f, x_, y_);            \
    double vx_ = check_uniform(-1, 1), vy_ = check_uniform(-1, 1);                                 \
    double t_ = __enzyme_fwddiff((void *)f, x_, vx_, y_, vy_);                                     \
    CHECK_CLOSE(t_, fd_[0] * vx_ + fd_[1] * vy_, tol, "fwd %s x=%.17g y=%.17g (vs FD)", #f, x_, y_); \
    CHECK_CLOSE(t_, g_.dx * vx_ + g_.dy * vy_, 1e-12, "fwd/rev dot %s x=%.17g y=%.17g", #f, x_, y_); \
  } while (0)

#ifdef __cplusplus
/* A function R^N -> R called as F(x, N): its reverse gradient against central differences, its
   forward derivative along a random direction against both (the C++ library tests' driver). */
template <int CheckN_, double (*CheckF_)(const double *, int)> static double check_fn_fd_(const double *x, void *) {
  return CheckF_(x, CheckN_);
}
template <int CheckN_, double (*CheckF_)(const double *, int)> static void check_gradient_fn(const char *name) {
  double x[CheckN_], dx[CheckN_] = {0}, g[CheckN_], v[CheckN_];
  check_fill(x, CheckN_, -1, 1);
  __enzyme_autodiff((void *)CheckF_, x, dx, CheckN_);
  check_fd_grad(check_fn_fd_<CheckN_, CheckF_>, nullptr, x, CheckN_, g);
  for (int i = 0; i < CheckN_; ++i)
    CHECK_CLOSE(dx[i], g[i], 1e-7, "rev %s d[%d] vs FD", name, i);
  check_fill(v, CheckN_, -1, 1);
  double t = __enzyme_fwddiff((void *)CheckF_, x, v, CheckN_);
  CHECK_CLOSE(t, check_dot(g, v, CheckN_), 1e-7, "fwd %s vs FD", name);
  CHECK_CLOSE(t, check_dot(dx, v, CheckN_), 1e-12, "%s fwd vs rev", name);
}
/* The STL tests' driver, for f: R^N -> R called as f(x, N) through a pointer: reverse gradient
   against central differences; forward along each unit direction against it; then two lanes at
   once (width 2): two forward directions, and two reverse gradients seeded 1 and 2. */
typedef double (*check_fn_ptr)(const double *, int);
struct check_fn_ptr_ctx_ { check_fn_ptr f; int n; };
static double check_fn_ptr_fd_(const double *x, void *c) {
  check_fn_ptr_ctx_ *k = (check_fn_ptr_ctx_ *)c;
  return k->f(x, k->n);
}
struct check_lanes2_ { double d[2]; };
extern "C" check_lanes2_ __enzyme_fwddiff_check_w2(void *, ...);
extern "C" void __enzyme_autodiff_check_w2(void *, ...);
template <int CheckN_> static void check_all_lanes(check_fn_ptr f, const char *name, const double *x) {
  double g[CheckN_] = {0}, fd[CheckN_];
  __enzyme_autodiff((void *)f, enzyme_dup, x, g, enzyme_const, CheckN_);
  check_fn_ptr_ctx_ k = {f, CheckN_};
  check_fd_grad(check_fn_ptr_fd_, &k, x, CheckN_, fd);
  for (int i = 0; i < CheckN_; i++) {
    CHECK_CLOSE(g[i], fd[i], 1e-6, "%s: reverse d/dx[%d] vs FD", name, i);
    double e[CheckN_] = {0};
    e[i] = 1;
    double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, e, enzyme_const, CheckN_);
    CHECK_CLOSE(t, g[i], 1e-10, "%s: forward vs reverse [%d]", name, i);
  }
  double v0[CheckN_], v1[CheckN_], g0[CheckN_] = {0}, g1[CheckN_] = {0};
  for (int i = 0; i < CheckN_; i++)
    v0[i] = sin(i + 1.0), v1[i] = cos(2.0 * i);
  check_lanes2_ t =
      __enzyme_fwddiff_check_w2((void *)f, enzyme_width, 2, enzyme_dup, x, v0, v1, enzyme_const, CheckN_);
  CHECK_CLOSE(t.d[0], check_dot(g, v0, CheckN_), 1e-10, "%s: width-2 forward lane 0", name);
  CHECK_CLOSE(t.d[1], check_dot(g, v1, CheckN_), 1e-10, "%s: width-2 forward lane 1", name);
  __enzyme_autodiff_check_w2((void *)f, enzyme_width, 2, enzyme_dup, x, g0, g1, enzyme_const, CheckN_, 1.0, 2.0);
  for (int i = 0; i < CheckN_; i++) {
    CHECK_CLOSE(g0[i], g[i], 1e-10, "%s: width-2 reverse lane 0 [%d]", name, i);
    CHECK_CLOSE(g1[i], 2 * g[i], 1e-10, "%s: width-2 reverse lane 1 [%d]", name, i);
  }
}
#endif

#endif /* SYNTHASE_TEST_CHECK_H */
