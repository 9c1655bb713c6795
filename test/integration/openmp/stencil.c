// OpenMP `parallel for` stencils inside differentiated code, static, chunked-static and dynamic
// schedules. Forward mode forks the tangent region; reverse mode forks the augmented region, then
// the reverse region, each thread with its own tape, adjoints added atomically into the shared
// shadow of x. Checked against the analytic Jacobian, forward against reverse (<dy, J dx> ==
// <J^T dy, dx>), and the same gradient with 1, 2 and 4 threads.
// RUN: %synthase-cc -fopenmp -O0 -I%inputs %s -o %t0 -lm && env OMP_NUM_THREADS=1 %t0 && env OMP_NUM_THREADS=2 %t0 && env OMP_NUM_THREADS=4 %t0
// RUN: %synthase-cc -fopenmp -O2 -I%inputs %s -o %t2 -lm && env OMP_NUM_THREADS=1 %t2 && env OMP_NUM_THREADS=2 %t2 && env OMP_NUM_THREADS=4 %t2
// RUN: %synthase-cc -fopenmp -O3 -march=native -I%inputs %s -o %t3 -lm && env OMP_NUM_THREADS=4 %t3
// RUN: %synthase-cxx -x c++ -fopenmp -O2 -I%inputs %s -o %t4 -lm && env OMP_NUM_THREADS=2 %t4
#include "check.h"
#include <omp.h>

#define N 203

/* y[i] = x[i-1] * x[i] + sin(x[i+1]) for 0 < i < n-1 */
static void stencil_static(const double *x, double *y, int n) {
#pragma omp parallel for schedule(static)
  for (int i = 1; i < n - 1; ++i)
    y[i] = x[i - 1] * x[i] + sin(x[i + 1]);
}

static void stencil_chunked(const double *x, double *y, int n) {
#pragma omp parallel for schedule(static, 7)
  for (int i = 1; i < n - 1; ++i)
    y[i] = x[i - 1] * x[i] + sin(x[i + 1]);
}

static void stencil_dynamic(const double *x, double *y, int n) {
#pragma omp parallel for schedule(dynamic, 5)
  for (int i = 1; i < n - 1; ++i)
    y[i] = x[i - 1] * x[i] + sin(x[i + 1]);
}

static void stencil_guided(const double *x, double *y, int n) {
#pragma omp parallel for schedule(guided)
  for (int i = 1; i < n - 1; ++i)
    y[i] = x[i - 1] * x[i] + sin(x[i + 1]);
}


/* J^T dy */
static void vjp_analytic(const double *x, const double *dy, double *dx, int n) {
  for (int i = 0; i < n; ++i)
    dx[i] = 0;
  for (int i = 1; i < n - 1; ++i) {
    dx[i - 1] += x[i] * dy[i];
    dx[i] += x[i - 1] * dy[i];
    dx[i + 1] += cos(x[i + 1]) * dy[i];
  }
}

/* The function differentiated must be known at compile time: one wrapper per kernel. */
#define WRAPPERS(k)                                                                                \
  static void reverse_##k(const double *x, const double *dy_seed, double *dx, int n) {            \
    double y[N], dy[N];                                                                            \
    for (int i = 0; i < n; ++i) {                                                                  \
      dx[i] = 0;                                                                                   \
      y[i] = 0;                                                                                    \
      dy[i] = dy_seed[i];                                                                          \
    }                                                                                              \
    __enzyme_autodiff((void *)k, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, n);          \
  }                                                                                                \
  static void forward_##k(const double *x, const double *dx, double *dy, int n) {                 \
    double y[N];                                                                                   \
    for (int i = 0; i < n; ++i)                                                                    \
      y[i] = dy[i] = 0;                                                                            \
    __enzyme_fwddiff((void *)k, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, n);           \
  }
WRAPPERS(stencil_static)
WRAPPERS(stencil_chunked)
WRAPPERS(stencil_dynamic)
WRAPPERS(stencil_guided)

typedef void (*rev_fn)(const double *, const double *, double *, int);
typedef void (*fwd_fn)(const double *, const double *, double *, int);

int main(void) {
  double x[N], dy[N], v[N], want[N], got[N], jv[N], base[N];
  check_seed(7);
  check_fill(x, N, -1.5, 1.5);
  check_fill(dy, N, -1, 1);
  check_fill(v, N, -1, 1);
  dy[0] = dy[N - 1] = 0; /* y[0] and y[n-1] are not written */
  vjp_analytic(x, dy, want, N);
  rev_fn rs[] = {reverse_stencil_static, reverse_stencil_chunked, reverse_stencil_dynamic, reverse_stencil_guided};
  fwd_fn fs[] = {forward_stencil_static, forward_stencil_chunked, forward_stencil_dynamic, forward_stencil_guided};
  const char *names[] = {"static", "static,7", "dynamic,5", "guided"};
  int threads[] = {1, 2, 4};
  for (int k = 0; k < 4; ++k) {
    for (int t = 0; t < 3; ++t) {
      omp_set_num_threads(threads[t]);
      rs[k](x, dy, got, N);
      if (t == 0)
        for (int i = 0; i < N; ++i)
          base[i] = got[i];
      for (int i = 0; i < N; ++i) {
        CHECK_CLOSE(got[i], want[i], 1e-13, "%s reverse %d threads dx[%d]", names[k], threads[t], i);
        CHECK_CLOSE(got[i], base[i], 1e-15, "%s reverse %d threads vs 1 thread dx[%d]", names[k], threads[t], i);
      }
      fs[k](x, v, jv, N);
      /* forward against reverse: <dy, J v> == <J^T dy, v> */
      CHECK_CLOSE(check_dot(dy, jv, N), check_dot(got, v, N), 1e-12, "%s fwd/rev %d threads", names[k], threads[t]);
      for (int i = 1; i < N - 1; ++i)
        CHECK_CLOSE(jv[i], x[i] * v[i - 1] + x[i - 1] * v[i] + cos(x[i + 1]) * v[i + 1], 1e-13,
                    "%s forward %d threads dy[%d]", names[k], threads[t], i);
    }
  }
  return check_report();
}
