// A critical section that adds a double partial sum into a float accumulator (`float s;
// s += part` with part a double: clang writes trunc(ext(s) + part)) and one that subtracts a
// float's double partial: the conversions have derivative 1, so the update is order-free like a
// plain sum and reverse mode takes it. Forward and reverse are checked against the analytic
// gradient and against each other, with 1, 2 and 4 threads.
// RUN: %synthase-cc -fopenmp -O0 -I%inputs %s -o %t0 -lm && env OMP_NUM_THREADS=1 %t0 && env OMP_NUM_THREADS=2 %t0 && env OMP_NUM_THREADS=4 %t0
// RUN: %synthase-cc -fopenmp -O2 -I%inputs %s -o %t2 -lm && env OMP_NUM_THREADS=1 %t2 && env OMP_NUM_THREADS=4 %t2
// RUN: %synthase-cc -fopenmp -O3 -march=native -I%inputs %s -o %t3 -lm && env OMP_NUM_THREADS=4 %t3
// RUN: %synthase-cxx -x c++ -fopenmp -O0 -I%inputs %s -o %t4 -lm && env OMP_NUM_THREADS=2 %t4
// RUN: %synthase-cxx -x c++ -fopenmp -O2 -I%inputs %s -o %t5 -lm && env OMP_NUM_THREADS=4 %t5
#include "check.h"
#include <omp.h>

#define N 37

/* sum_i w_i x_i^3 - sum_i x_i, accumulated in a float through per-thread double partials */
static float mixed(const float *x, int n) {
  float s = 0.0f, t = 0.0f;
#pragma omp parallel
  {
    double part = 0.0, neg = 0.0;
#pragma omp for
    for (int i = 0; i < n; ++i) {
      part += (double)x[i] * x[i] * x[i] * (1.0 + 0.125 * (i % 5));
      neg += x[i];
    }
#pragma omp critical
    {
      s += part;
      t -= neg;
    }
  }
  return s + t;
}

float __enzyme_autodiff_f(void *, ...) __asm__("__enzyme_autodiff");
float __enzyme_fwddiff_f(void *, ...) __asm__("__enzyme_fwddiff");

int main(void) {
  float x[N], dx[N] = {0}, v[N];
  for (int i = 0; i < N; ++i) {
    x[i] = 0.25f + 0.03125f * (float)i;
    v[i] = (i % 3) ? 1.0f : -0.5f;
  }
  float out = mixed(x, N);
  double want_out = 0, want_dir = 0;
  for (int i = 0; i < N; ++i) {
    double w = 1.0 + 0.125 * (i % 5);
    want_out += w * (double)x[i] * x[i] * x[i] - x[i];
    want_dir += (3.0 * w * (double)x[i] * x[i] - 1.0) * v[i];
  }
  CHECK_CLOSE(out, want_out, 1e-5 * fabs(want_out), "primal with %d threads", omp_get_max_threads());

  __enzyme_autodiff_f((void *)mixed, enzyme_dup, x, dx, enzyme_const, N);
  double dot = 0;
  for (int i = 0; i < N; ++i) {
    double w = 1.0 + 0.125 * (i % 5);
    CHECK_CLOSE(dx[i], 3.0 * w * (double)x[i] * x[i] - 1.0, 1e-5, "reverse dx[%d] with %d threads", i,
                omp_get_max_threads());
    dot += dx[i] * (double)v[i];
  }
  float t = __enzyme_fwddiff_f((void *)mixed, enzyme_dup, x, v, enzyme_const, N);
  CHECK_CLOSE(t, want_dir, 1e-4, "forward with %d threads", omp_get_max_threads());
  CHECK_CLOSE(t, dot, 1e-4, "forward vs reverse with %d threads", omp_get_max_threads());
  return check_report();
}
