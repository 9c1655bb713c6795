// Memory overwritten in place: x[i] = f(x[i]) in a loop, several sweeps over the same buffer
// (values needed by the reverse sweep are overwritten and must be cached), an explicit-Euler time
// loop updating one state array, in-place prefix sums, in-place reversal/swap, a scalar
// overwritten through a pointer. Gradients w.r.t. the initial contents vs. FD; dot-product test.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -x c++ -O0 -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
#include "check.h"

#define N 6

/* x[i] = sin(x[i]) * x[i], three sweeps, then the sum of squares */
static double sweeps(double *x, int n) {
  for (int s = 0; s < 3; ++s)
    for (int i = 0; i < n; ++i)
      x[i] = sin(x[i]) * x[i] + 0.5;
  double r = 0;
  for (int i = 0; i < n; ++i)
    r += x[i] * x[i];
  return r;
}

/* explicit Euler steps of a nonlinear reaction-diffusion ODE, state updated in place */
static void euler(double *u, const double *k, int n, int steps) {
  double tmp[N];
  for (int s = 0; s < steps; ++s) {
    for (int i = 0; i < n; ++i) {
      double l = u[(i + n - 1) % n], r = u[(i + 1) % n];
      tmp[i] = u[i] + 0.05 * (k[i] * (l - 2 * u[i] + r) - u[i] * u[i] * u[i]);
    }
    for (int i = 0; i < n; ++i)
      u[i] = tmp[i];
  }
}

/* in-place prefix product-sum */
static void inplace_prefix(double *x, int n) {
  for (int i = 1; i < n; ++i)
    x[i] = x[i - 1] * 0.5 + x[i] * cos(x[i - 1]);
}

/* reverse the array in place, then square it in place */
static void reverse_square(double *x, int n) {
  for (int i = 0, j = n - 1; i < j; ++i, --j) {
    double t = x[i];
    x[i] = x[j];
    x[j] = t;
  }
  for (int i = 0; i < n; ++i)
    x[i] = x[i] * x[i] * (i + 1);
}

/* scalar accumulator overwritten through a pointer in a loop */
static void accum(double *acc, const double *x, int n) {
  for (int i = 0; i < n; ++i)
    *acc = *acc * x[i] + exp(-*acc);
}

static double sweeps_fd(const double *x, void *c) {
  double t[N];
  memcpy(t, x, sizeof t);
  (void)c;
  return sweeps(t, N);
}
typedef struct { const double *k; int steps; } euler_ctx;
static void euler_fd(const double *x, double *y, void *c) {
  euler_ctx *e = (euler_ctx *)c;
  memcpy(y, x, sizeof(double) * N);
  euler(y, e->k, N, e->steps);
}
static void prefix_fd(const double *x, double *y, void *c) {
  (void)c;
  memcpy(y, x, sizeof(double) * N);
  inplace_prefix(y, N);
}
static void rs_fd(const double *x, double *y, void *c) {
  (void)c;
  memcpy(y, x, sizeof(double) * N);
  reverse_square(y, N);
}

/* generic: in-place map F on N entries, forward vs FD and dot test */
#define CHECK_INPLACE(fn, fdfn, ctx, ...)                                                          \
  do {                                                                                             \
    double x0[N], x[N], dx[N], v[N], w[N], fdv[N];                                                 \
    check_fill(x0, N, -1, 1);                                                                      \
    check_fill(v, N, -1, 1);                                                                       \
    check_fill(w, N, -1, 1);                                                                       \
    memcpy(x, x0, sizeof x);                                                                       \
    memcpy(dx, v, sizeof v);                                                                       \
    __enzyme_fwddiff((void *)fn, x, dx, __VA_ARGS__);                                              \
    check_fd_jvp(fdfn, ctx, x0, N, v, N, fdv);                                                     \
    for (int i = 0; i < N; ++i)                                                                    \
      CHECK_CLOSE(dx[i], fdv[i], 1e-7, "fwd %s [%d] vs FD", #fn, i);                               \
    double jvw = check_dot(dx, w, N);                                                              \
    memcpy(x, x0, sizeof x);                                                                       \
    memcpy(dx, w, sizeof w);                                                                       \
    __enzyme_autodiff((void *)fn, x, dx, __VA_ARGS__);                                             \
    CHECK_CLOSE(jvw, check_dot(v, dx, N), 1e-12, "%s dot test <Jv,w>=<v,J^T w>", #fn);             \
  } while (0)

int main(void) {
  check_seed(23);
  for (int t = 0; t < 4; ++t) {
    double x0[N], x[N], dx[N], g[N];
    check_fill(x0, N, -1.5, 1.5);
    memcpy(x, x0, sizeof x);
    memset(dx, 0, sizeof dx);
    __enzyme_autodiff((void *)sweeps, x, dx, N);
    check_fd_grad(sweeps_fd, 0, x0, N, g);
    double xs[N];
    memcpy(xs, x0, sizeof xs);
    double r = sweeps(xs, N);
    for (int i = 0; i < N; ++i) {
      CHECK_CLOSE(dx[i], g[i], 1e-7, "rev sweeps d[%d] vs FD", i);
      CHECK_CLOSE(x[i], xs[i], 1e-15, "rev sweeps primal x[%d] left as the primal leaves it", i);
    }
    double v[N];
    check_fill(v, N, -1, 1);
    memcpy(x, x0, sizeof x);
    double tv[N];
    memcpy(tv, v, sizeof v);
    double tf = __enzyme_fwddiff((void *)sweeps, x, tv, N);
    CHECK_CLOSE(tf, check_dot(g, v, N), 1e-7, "fwd sweeps vs FD");
    CHECK_CLOSE(tf, check_dot(dx, v, N), 1e-12, "sweeps dot test");
    (void)r;

    double k[N];
    check_fill(k, N, 0.5, 1.5);
    euler_ctx ec = {k, 40};
    CHECK_INPLACE(euler, euler_fd, &ec, enzyme_const, k, N, 40);
    CHECK_INPLACE(inplace_prefix, prefix_fd, 0, N);
    CHECK_INPLACE(reverse_square, rs_fd, 0, N);

    /* gradient w.r.t. the diffusion coefficients as well (k active) */
    double u[N], du[N], dk[N], u0[N];
    check_fill(u0, N, -1, 1);
    memcpy(u, u0, sizeof u);
    double w[N];
    check_fill(w, N, -1, 1);
    memcpy(du, w, sizeof w);
    memset(dk, 0, sizeof dk);
    __enzyme_autodiff((void *)euler, u, du, k, dk, N, 10);
    /* FD of <w, u_final> w.r.t. k[j] */
    for (int j = 0; j < N; ++j) {
      double kp[N], km[N], up[N], um[N];
      memcpy(kp, k, sizeof kp);
      memcpy(km, k, sizeof km);
      double h = 1e-5;
      kp[j] += h;
      km[j] -= h;
      memcpy(up, u0, sizeof up);
      memcpy(um, u0, sizeof um);
      euler(up, kp, N, 10);
      euler(um, km, N, 10);
      CHECK_CLOSE(dk[j], (check_dot(up, w, N) - check_dot(um, w, N)) / (2 * h), 1e-7, "euler dk[%d] vs FD", j);
    }

    /* scalar through pointer */
    double acc = 0.3, dacc = 1.0, xx[N], dxx[N];
    check_fill(xx, N, 0.2, 1.0);
    memset(dxx, 0, sizeof dxx);
    __enzyme_autodiff((void *)accum, &acc, &dacc, xx, dxx, N);
    double a0 = 0.3, h = 1e-6, ap = a0 + h, am = a0 - h;
    accum(&ap, xx, N);
    accum(&am, xx, N);
    CHECK_CLOSE(dacc, (ap - am) / (2 * h), 1e-7, "accum d acc0 vs FD");
    double dacc_f = 1.0, acc_f = 0.3, dxz[N];
    memset(dxz, 0, sizeof dxz);
    __enzyme_fwddiff((void *)accum, &acc_f, &dacc_f, xx, dxz, N);
    CHECK_CLOSE(dacc_f, (ap - am) / (2 * h), 1e-7, "fwd accum vs FD");
    double aref = 0.3;
    accum(&aref, xx, N);
    CHECK_CLOSE(acc_f, aref, 1e-15, "fwd accum primal");
  }
  return check_report();
}
