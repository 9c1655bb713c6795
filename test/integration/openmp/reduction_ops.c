// Reductions with operators other than +, in forward mode: `reduction(max:m)`, `reduction(min:m)`
// and `reduction(*:p)`. Their atomic path is a compare-exchange loop, so in differentiated code
// every thread combines its private copy on the plain path, one at a time in a critical section;
// the tangents follow the same order. (Reverse mode refuses them: the reverse of such a chain
// depends on the order the threads entered, lit/diagnostics/openmp_unsupported.c.) Checked
// against analytic derivatives across 1, 2 and 4 threads.
// RUN: %synthase-cc -fopenmp -O0 -I%inputs %s -o %t0 -lm && env OMP_NUM_THREADS=1 %t0 && env OMP_NUM_THREADS=2 %t0 && env OMP_NUM_THREADS=4 %t0
// RUN: %synthase-cc -fopenmp -O2 -I%inputs %s -o %t2 -lm && env OMP_NUM_THREADS=1 %t2 && env OMP_NUM_THREADS=2 %t2 && env OMP_NUM_THREADS=4 %t2
// RUN: %synthase-cc -fopenmp -O3 -march=native -I%inputs %s -o %t3 -lm && env OMP_NUM_THREADS=4 %t3
// RUN: %synthase-cxx -x c++ -fopenmp -O2 -I%inputs %s -o %t4 -lm && env OMP_NUM_THREADS=2 %t4
#include "check.h"
#include <omp.h>

#define N 40

static double maxmin(const double *x, int n) {
  double hi = -1e300, lo = 1e300;
#pragma omp parallel for reduction(max : hi) reduction(min : lo)
  for (int i = 0; i < n; ++i) {
    double v = x[i] * x[i] + 0.1 * x[i];
    hi = v > hi ? v : hi;
    lo = v < lo ? v : lo;
  }
  return hi - 2 * lo;
}

static double product(const double *x, int n) {
  double p = 1;
#pragma omp parallel for reduction(* : p) schedule(dynamic, 3)
  for (int i = 0; i < n; ++i)
    p *= 1 + 0.1 * x[i];
  return p;
}

int main(void) {
  double x[N], v[N];
  check_seed(13);
  check_fill(x, N, -1, 1);
  check_fill(v, N, -1, 1);
  int ihi = 0, ilo = 0;
  for (int i = 1; i < N; ++i) {
    double f = x[i] * x[i] + 0.1 * x[i];
    if (f > x[ihi] * x[ihi] + 0.1 * x[ihi])
      ihi = i;
    if (f < x[ilo] * x[ilo] + 0.1 * x[ilo])
      ilo = i;
  }
  double p = 1;
  for (int i = 0; i < N; ++i)
    p *= 1 + 0.1 * x[i];
  int threads[] = {1, 2, 4};
  for (int t = 0; t < 3; ++t) {
    omp_set_num_threads(threads[t]);
    /* the derivatives of maxmin and product along v */
    double want_mm = (2 * x[ihi] + 0.1) * v[ihi] - 2 * (2 * x[ilo] + 0.1) * v[ilo], want_p = 0;
    for (int i = 0; i < N; ++i)
      want_p += p * 0.1 / (1 + 0.1 * x[i]) * v[i];
    double jv = __enzyme_fwddiff((void *)maxmin, enzyme_dup, x, v, enzyme_const, N);
    CHECK_CLOSE(jv, want_mm, 1e-14, "maxmin forward %d threads", threads[t]);
    double jp = __enzyme_fwddiff((void *)product, enzyme_dup, x, v, enzyme_const, N);
    CHECK_CLOSE(jp, want_p, 1e-13, "product forward %d threads", threads[t]);
    /* each unit direction: the partial derivatives one by one */
    for (int k = 0; k < N; k += 7) {
      double e[N] = {0};
      e[k] = 1;
      double d = __enzyme_fwddiff((void *)maxmin, enzyme_dup, x, e, enzyme_const, N);
      double want = (k == ihi ? 2 * x[k] + 0.1 : 0) - (k == ilo ? 2 * (2 * x[k] + 0.1) : 0);
      CHECK_CLOSE(d, want, 1e-15, "maxmin d/dx[%d] %d threads", k, threads[t]);
    }
  }
  return check_report();
}
