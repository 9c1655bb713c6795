// OpenMP reductions inside differentiated code: `parallel for reduction(+:s)` (the runtime's
// __kmpc_reduce_nowait) and `omp for reduction` inside a `parallel` region (the blocking
// __kmpc_reduce with its barrier), a dot product and a weighted sum of squares. The reduction
// always takes the atomic path in differentiated code; its adjoint is a broadcast of the shared
// variable's adjoint to every thread's private copy. Checked against analytic gradients, forward
// against reverse, and across 1, 2 and 4 threads.
// RUN: %synthase-cc -fopenmp -O0 -I%inputs %s -o %t0 -lm && env OMP_NUM_THREADS=1 %t0 && env OMP_NUM_THREADS=2 %t0 && env OMP_NUM_THREADS=4 %t0
// RUN: %synthase-cc -fopenmp -O2 -I%inputs %s -o %t2 -lm && env OMP_NUM_THREADS=1 %t2 && env OMP_NUM_THREADS=2 %t2 && env OMP_NUM_THREADS=4 %t2
// RUN: %synthase-cc -fopenmp -O3 -march=native -I%inputs %s -o %t3 -lm && env OMP_NUM_THREADS=4 %t3
// RUN: %synthase-cxx -x c++ -fopenmp -O2 -I%inputs %s -o %t4 -lm && env OMP_NUM_THREADS=2 %t4
#include "check.h"
#include <omp.h>

#define N 301

static double dot(const double *x, const double *y, int n) {
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; ++i)
    s += x[i] * y[i];
  return s;
}

/* sum_i w_i x_i^2 + (sum_i x_i)^2, both sums in one region, a blocking reduction and a barrier */
static double two_sums(const double *x, const double *w, int n) {
  double s = 0, t = 0;
#pragma omp parallel
  {
#pragma omp for reduction(+ : s) schedule(dynamic, 4)
    for (int i = 0; i < n; ++i)
      s += w[i] * x[i] * x[i];
#pragma omp for reduction(+ : t)
    for (int i = 0; i < n; ++i)
      t += x[i];
  }
  return s + t * t;
}

int main(void) {
  double x[N], y[N], w[N], dx[N], dy[N], dw[N], base[N], v[N], u[N];
  check_seed(11);
  check_fill(x, N, -1, 1);
  check_fill(y, N, -1, 1);
  check_fill(w, N, 0.5, 2);
  check_fill(v, N, -1, 1);
  check_fill(u, N, -1, 1);
  int threads[] = {1, 2, 4};
  for (int t = 0; t < 3; ++t) {
    omp_set_num_threads(threads[t]);
    /* dot: d/dx = y, d/dy = x */
    for (int i = 0; i < N; ++i)
      dx[i] = dy[i] = 0;
    __enzyme_autodiff((void *)dot, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, N);
    for (int i = 0; i < N; ++i) {
      CHECK_CLOSE(dx[i], y[i], 1e-15, "dot dx[%d] %d threads", i, threads[t]);
      CHECK_CLOSE(dy[i], x[i], 1e-15, "dot dy[%d] %d threads", i, threads[t]);
    }
    double jv = __enzyme_fwddiff((void *)dot, enzyme_dup, x, v, enzyme_dup, y, u, enzyme_const, N);
    CHECK_CLOSE(jv, check_dot(v, y, N) + check_dot(x, u, N), 1e-13, "dot forward %d threads", threads[t]);
    CHECK_CLOSE(jv, check_dot(dx, v, N) + check_dot(dy, u, N), 1e-13, "dot fwd/rev %d threads", threads[t]);

    /* two_sums: d/dx_i = 2 w_i x_i + 2 sum(x), d/dw_i = x_i^2 */
    double sx = 0;
    for (int i = 0; i < N; ++i)
      sx += x[i];
    for (int i = 0; i < N; ++i)
      dx[i] = dw[i] = 0;
    __enzyme_autodiff((void *)two_sums, enzyme_dup, x, dx, enzyme_dup, w, dw, enzyme_const, N);
    if (t == 0)
      for (int i = 0; i < N; ++i)
        base[i] = dx[i];
    for (int i = 0; i < N; ++i) {
      CHECK_CLOSE(dx[i], 2 * w[i] * x[i] + 2 * sx, 1e-13, "two_sums dx[%d] %d threads", i, threads[t]);
      CHECK_CLOSE(dx[i], base[i], 1e-13, "two_sums dx[%d] %d threads vs 1", i, threads[t]);
      CHECK_CLOSE(dw[i], x[i] * x[i], 1e-15, "two_sums dw[%d] %d threads", i, threads[t]);
    }
    double jv2 = __enzyme_fwddiff((void *)two_sums, enzyme_dup, x, v, enzyme_dup, w, u, enzyme_const, N);
    CHECK_CLOSE(jv2, check_dot(dx, v, N) + check_dot(dw, u, N), 1e-12, "two_sums fwd/rev %d threads", threads[t]);
  }
  return check_report();
}
