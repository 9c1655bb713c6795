// `#pragma omp atomic` and `critical` updates of shared accumulators inside a parallel loop:
// a histogram-like scatter (several iterations add into the same bin) with atomic adds and
// subtractions, and a critical section that reads and writes a shared sum. Forward mode adds the
// tangents atomically; reverse mode reads the bin's adjoint (the atomic add's adjoint), and runs
// the reverse of the critical section inside the same critical section. Checked against
// analytic gradients, forward against reverse, and across 1, 2 and 4 threads.
// RUN: %synthase-cc -fopenmp -O0 -I%inputs %s -o %t0 -lm && env OMP_NUM_THREADS=1 %t0 && env OMP_NUM_THREADS=2 %t0 && env OMP_NUM_THREADS=4 %t0
// RUN: %synthase-cc -fopenmp -O2 -I%inputs %s -o %t2 -lm && env OMP_NUM_THREADS=1 %t2 && env OMP_NUM_THREADS=2 %t2 && env OMP_NUM_THREADS=4 %t2
// RUN: %synthase-cc -fopenmp -O3 -march=native -I%inputs %s -o %t3 -lm && env OMP_NUM_THREADS=4 %t3
// RUN: %synthase-cxx -x c++ -fopenmp -O2 -I%inputs %s -o %t4 -lm && env OMP_NUM_THREADS=2 %t4
#include "check.h"
#include <omp.h>

#define N 157
#define BINS 5

/* bins[i % BINS] += x_i^2, bins[(i+1) % BINS] -= 0.5 sin(x_i) */
static void scatter(const double *x, double *bins, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; ++i) {
    double a = x[i] * x[i];
#pragma omp atomic
    bins[i % BINS] += a;
#pragma omp atomic
    bins[(i + 1) % BINS] -= 0.5 * sin(x[i]);
  }
}

/* out[0] = sum_i exp(0.1 x_i) * c, accumulated in a critical section */
static void critical_sum(const double *x, double *out, double c, int n) {
#pragma omp parallel for schedule(dynamic, 3)
  for (int i = 0; i < n; ++i) {
    double e = exp(0.1 * x[i]);
#pragma omp critical
    { out[0] += e * c; }
  }
}

int main(void) {
  double x[N], dx[N], v[N], bins[BINS], db[BINS], jb[BINS], base[N];
  check_seed(5);
  check_fill(x, N, -2, 2);
  check_fill(v, N, -1, 1);
  int threads[] = {1, 2, 4};
  double seed[BINS] = {1.0, -0.5, 0.25, 2.0, -1.5};
  for (int t = 0; t < 3; ++t) {
    omp_set_num_threads(threads[t]);
    for (int b = 0; b < BINS; ++b) {
      bins[b] = 0;
      db[b] = seed[b];
    }
    for (int i = 0; i < N; ++i)
      dx[i] = 0;
    __enzyme_autodiff((void *)scatter, enzyme_dup, x, dx, enzyme_dup, bins, db, enzyme_const, N);
    if (t == 0)
      for (int i = 0; i < N; ++i)
        base[i] = dx[i];
    for (int i = 0; i < N; ++i) {
      double want = 2 * x[i] * seed[i % BINS] - 0.5 * cos(x[i]) * seed[(i + 1) % BINS];
      CHECK_CLOSE(dx[i], want, 1e-14, "scatter dx[%d] %d threads", i, threads[t]);
      CHECK_CLOSE(dx[i], base[i], 1e-15, "scatter dx[%d] %d threads vs 1", i, threads[t]);
    }
    for (int b = 0; b < BINS; ++b)
      bins[b] = jb[b] = 0;
    __enzyme_fwddiff((void *)scatter, enzyme_dup, x, v, enzyme_dup, bins, jb, enzyme_const, N);
    CHECK_CLOSE(check_dot(jb, seed, BINS), check_dot(dx, v, N), 1e-12, "scatter fwd/rev %d threads", threads[t]);

    double out = 0, dout = 1.0;
    for (int i = 0; i < N; ++i)
      dx[i] = 0;
    __enzyme_autodiff((void *)critical_sum, enzyme_dup, x, dx, enzyme_dup, &out, &dout, enzyme_const, 3.0,
                      enzyme_const, N);
    for (int i = 0; i < N; ++i)
      CHECK_CLOSE(dx[i], 0.3 * exp(0.1 * x[i]), 1e-14, "critical dx[%d] %d threads", i, threads[t]);
    double o2 = 0, jo = 0;
    __enzyme_fwddiff((void *)critical_sum, enzyme_dup, x, v, enzyme_dup, &o2, &jo, enzyme_const, 3.0, enzyme_const, N);
    CHECK_CLOSE(jo, check_dot(dx, v, N), 1e-12, "critical fwd/rev %d threads", threads[t]);
  }
  return check_report();
}
