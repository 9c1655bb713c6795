// llvm.vector.reduce.fadd/fmul/fmax/fmin: what -O3 -march=native (with and without -ffast-math)
// leaves after sum, product, max and min loops, Rust's fold(f64::NEG_INFINITY, f64::max) among
// them. clang's own pipeline runs after the plugin, so the vectorized IR is produced first without
// the plugin and then differentiated by synthase-opt, as lld does for a Rust release build.
// __builtin_reduce_max/min emit the reductions at every level.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t4 -lm && %t4
// RUN: %clang -O3 -ffast-math -march=native -Wno-nan-infinity-disabled -I%inputs %s -S -emit-llvm -o %t5.ll
// RUN: grep -q llvm.vector.reduce.fmax %t5.ll && grep -q llvm.vector.reduce.fmul %t5.ll && grep -q llvm.vector.reduce.fadd %t5.ll
// RUN: %synthase-opt %t5.ll -o %t5.opt.ll && %clang -O3 -march=native %t5.opt.ll -o %t5 -lm && %t5
// RUN: %clang -O3 -march=native -I%inputs %s -S -emit-llvm -o %t6.ll && grep -q llvm.vector.reduce.fmin %t6.ll
// RUN: %synthase-opt %t6.ll -o %t6.opt.ll && %clang -O3 -march=native %t6.opt.ll -o %t6 -lm && %t6
#include "check.h"
#define N 37
/* Rust's iter().fold(f64::NEG_INFINITY, f64::max) */
static double maxfold(const double *x, int n) {
  double m = -INFINITY;
  for (int i = 0; i < n; i++) m = fmax(m, x[i]);
  return m;
}
static double minfold(const double *x, int n) {
  double m = INFINITY;
  for (int i = 0; i < n; i++) m = fmin(m, x[i] * x[i]);
  return m;
}
static double sum(const double *x, int n) {
  double s = 0.5;
  for (int i = 0; i < n; i++) s += x[i] * x[i];
  return s;
}
static double prod(const double *x, int n) {
  double p = 1.0;
  for (int i = 0; i < n; i++) p *= 1.0 + 0.01 * x[i];
  return p;
}
static float sumf(const float *x, int n) {
  float s = 0.0f;
  for (int i = 0; i < n; i++) s += x[i] * x[i];
  return s;
}
/* The reductions written out: clang emits llvm.vector.reduce.fmax/fmin at every -O level. */
typedef double v8d __attribute__((ext_vector_type(8)));
static double vmax(const double *p) {
  v8d v;
  memcpy(&v, p, sizeof v);
  return __builtin_reduce_max(v);
}
static double vmin(const double *p) {
  v8d v;
  memcpy(&v, p, sizeof v);
  return __builtin_reduce_min(v * 2.0);
}
typedef double (*fn)(const double *, int);
static double fdw(const double *x, void *c) { return (*(fn *)c)(x, N); }
#define check_both(f, name, x, tol)                                                            \
  do {                                                                                         \
    double dx[N] = {0}, want[N];                                                               \
    fn fp = f;                                                                                 \
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N);                          \
    check_fd_grad(fdw, &fp, x, N, want);                                                       \
    for (int i = 0; i < N; i++) {                                                              \
      double v[N] = {0};                                                                       \
      v[i] = 1;                                                                                \
      double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, v, enzyme_const, N);               \
      CHECK_CLOSE(dx[i], want[i], tol, "%s reverse d/dx[%d]", name, i);                        \
      CHECK_CLOSE(t, dx[i], 1e-12, "%s forward d/dx[%d]", name, i);                            \
    }                                                                                          \
  } while (0)
int main(void) {
  double x[N];
  check_seed(7);
  for (int i = 0; i < N; i++) x[i] = check_uniform(-2, 2);
  x[30] = 2.5; /* the maximum */
  check_both(maxfold, "maxfold", x, 1e-6);
  check_both(minfold, "minfold", x, 1e-6);
  check_both(sum, "sum", x, 1e-6);
  check_both(prod, "prod", x, 1e-6);
  /* ties inside a fold: the vectorizer's own association decides which maximal element wins;
     the adjoint goes to exactly one of them, the same one in both modes */
  double t[N];
  for (int i = 0; i < N; i++) t[i] = (i == 5 || i == 20) ? 3.0 : 1.0;
  double dt[N] = {0};
  __enzyme_autodiff((void *)maxfold, enzyme_dup, t, dt, enzyme_const, N);
  CHECK_CLOSE(dt[5] + dt[20], 1.0, 0, "tie: one maximal element gets the adjoint");
  for (int i = 0; i < N; i++) {
    double v[N] = {0};
    v[i] = 1;
    double tf = __enzyme_fwddiff((void *)maxfold, enzyme_dup, t, v, enzyme_const, N);
    CHECK_TRUE(dt[i] == 0.0 || dt[i] == 1.0, "tie reverse [%d] = %g", i, dt[i]);
    CHECK_CLOSE(tf, dt[i], 0, "tie forward [%d]", i);
  }
  /* ties inside one reduction: the first maximal lane, in both modes */
  double tv[8] = {1, 3, 0, 3, 2, 3, 1, 0}, dtv[8] = {0}, dmin[8] = {0};
  __enzyme_autodiff((void *)vmax, tv, dtv);
  for (int i = 0; i < 8; i++) {
    double e[8] = {0};
    e[i] = 1;
    double tf = __enzyme_fwddiff((void *)vmax, tv, e);
    CHECK_CLOSE(dtv[i], i == 1 ? 1.0 : 0.0, 0, "reduce_max tie reverse [%d]", i);
    CHECK_CLOSE(tf, dtv[i], 0, "reduce_max tie forward [%d]", i);
  }
  __enzyme_autodiff((void *)vmin, tv, dmin);
  for (int i = 0; i < 8; i++)
    CHECK_CLOSE(dmin[i], i == 2 ? 2.0 : 0.0, 0, "reduce_min tie reverse [%d]", i);
  float xf[N], dxf[N] = {0};
  for (int i = 0; i < N; i++) xf[i] = (float)x[i];
  __enzyme_autodiff((void *)sumf, enzyme_dup, xf, dxf, enzyme_const, N);
  for (int i = 0; i < N; i++) CHECK_CLOSE(dxf[i], 2 * xf[i], 1e-6, "sumf [%d]", i);
  return check_report();
}
