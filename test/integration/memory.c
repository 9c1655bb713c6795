// Heap and memory intrinsics inside differentiated code: malloc/calloc/free of buffers
// holding active values (shadow allocations, zeroed, freed), memcpy/memmove/memset on active
// data, a malloc'd array of pointers. realloc has its own test (realloc.c).
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -x c++ -O0 -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
#include "check.h"

#define N 8

/* malloc'd temporaries, freed before returning */
static double heap_tmp(const double *x, int n) {
  double *a = (double *)malloc(sizeof(double) * n);
  double *b = (double *)calloc(n, sizeof(double));
  for (int i = 0; i < n; ++i)
    a[i] = sin(x[i]) * x[i];
  for (int i = 1; i < n; ++i)
    b[i] = b[i - 1] + a[i] * a[i - 1];
  double r = b[n - 1] + a[0];
  free(a);
  free(b);
  return r;
}

/* memcpy, memmove and memset on active data */
static double copies(const double *x, int n) {
  double tmp[N * 2];
  memset(tmp, 0, sizeof tmp);
  memcpy(tmp + 2, x, sizeof(double) * n);      /* tmp[2..n+1] = x */
  memmove(tmp + 3, tmp + 2, sizeof(double) * n); /* overlapping shift by one */
  double r = 0;
  for (int i = 0; i < n + 3; ++i)
    r += tmp[i] * tmp[i] * (i + 1);
  return r;
}

/* copy out to an output array with memcpy, then scale in place */
static void copy_out(const double *x, double *y, int n) {
  memcpy(y, x, sizeof(double) * n);
  for (int i = 0; i < n; ++i)
    y[i] = y[i] * y[i] + x[(i + 1) % n];
}

/* array of row pointers on the heap */
static double rows(const double *x, int n) {
  double **r = (double **)malloc(sizeof(double *) * 2);
  r[0] = (double *)malloc(sizeof(double) * n);
  r[1] = (double *)malloc(sizeof(double) * n);
  for (int i = 0; i < n; ++i) {
    r[0][i] = x[i] * 2;
    r[1][i] = exp(x[i]);
  }
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += r[0][i] * r[1][(i + 1) % n];
  free(r[0]);
  free(r[1]);
  free(r);
  return s;
}

/* malloc'd buffer freed and reallocated in a loop */
static double churn(const double *x, int n) {
  double s = 0;
  for (int k = 0; k < 3; ++k) {
    double *t = (double *)malloc(sizeof(double) * n);
    for (int i = 0; i < n; ++i)
      t[i] = x[i] * (k + 1) + s;
    for (int i = 0; i < n; ++i)
      s += t[i] * t[i] * 0.01;
    free(t);
  }
  return s;
}

#define FDW(fn) \
  static double fn##_fd(const double *x, void *c) { (void)c; return fn(x, N); }
FDW(heap_tmp)
FDW(copies)
FDW(rows)
FDW(churn)
static void copy_out_fd(const double *x, double *y, void *c) { (void)c; copy_out(x, y, N); }

#define CHECK_GRAD(fn, lo, hi)                                                                     \
  do {                                                                                             \
    double x[N], dx[N], g[N], v[N], tv[N];                                                         \
    check_fill(x, N, lo, hi);                                                                      \
    for (int i = 0; i < N; ++i)                                                                    \
      dx[i] = 1.0;                                                                                 \
    __enzyme_autodiff((void *)fn, x, dx, N);                                                       \
    check_fd_grad(fn##_fd, 0, x, N, g);                                                            \
    for (int i = 0; i < N; ++i)                                                                    \
      CHECK_CLOSE(dx[i] - 1.0, g[i], 1e-7, "rev %s d[%d] vs FD (+= into 1.0)", #fn, i);             \
    check_fill(v, N, -1, 1);                                                                       \
    memcpy(tv, v, sizeof v);                                                                       \
    double t_ = __enzyme_fwddiff((void *)fn, x, tv, N);                                            \
    CHECK_CLOSE(t_, check_dot(g, v, N), 1e-7, "fwd %s vs FD", #fn);                                \
    for (int i = 0; i < N; ++i)                                                                    \
      dx[i] -= 1.0;                                                                                \
    CHECK_CLOSE(t_, check_dot(dx, v, N), 1e-12, "%s dot test", #fn);                               \
  } while (0)

int main(void) {
  check_seed(31);
  for (int t = 0; t < 4; ++t) {
    CHECK_GRAD(heap_tmp, -1.5, 1.5);
    CHECK_GRAD(copies, -1.5, 1.5);
    CHECK_GRAD(rows, -1, 1);
    CHECK_GRAD(churn, -1, 1);

    double x[N], y[N], dx[N], dy[N], v[N], w[N], fdv[N];
    check_fill(x, N, -1, 1);
    check_fill(v, N, -1, 1);
    check_fill(w, N, -1, 1);
    memcpy(dx, v, sizeof v);
    __enzyme_fwddiff((void *)copy_out, x, dx, y, dy, N);
    check_fd_jvp(copy_out_fd, 0, x, N, v, N, fdv);
    for (int i = 0; i < N; ++i)
      CHECK_CLOSE(dy[i], fdv[i], 1e-7, "fwd copy_out[%d] vs FD", i);
    double jvw = check_dot(dy, w, N);
    memset(dx, 0, sizeof dx);
    memcpy(dy, w, sizeof w);
    __enzyme_autodiff((void *)copy_out, x, dx, y, dy, N);
    CHECK_CLOSE(jvw, check_dot(v, dx, N), 1e-12, "copy_out dot test");
  }
  return check_report();
}
