// A `parallel` region that splits the work itself with omp_get_thread_num and
// omp_get_num_threads, in two phases separated by an explicit barrier: phase 1 writes a
// temporary from x, phase 2 reads the temporary's neighbours (written by other threads). The
// reverse region mirrors the barrier, so the adjoints phase 2 scatters into the temporary's shadow
// are complete before phase 1's reverse reads them. A `single` block adds a shared term. Checked
// against central finite differences, forward against reverse, and across 1, 2 and 4 threads.
// RUN: %synthase-cc -fopenmp -O0 -I%inputs %s -o %t0 -lm && env OMP_NUM_THREADS=1 %t0 && env OMP_NUM_THREADS=2 %t0 && env OMP_NUM_THREADS=4 %t0
// RUN: %synthase-cc -fopenmp -O2 -I%inputs %s -o %t2 -lm && env OMP_NUM_THREADS=1 %t2 && env OMP_NUM_THREADS=2 %t2 && env OMP_NUM_THREADS=4 %t2
// RUN: %synthase-cc -fopenmp -O3 -march=native -I%inputs %s -o %t3 -lm && env OMP_NUM_THREADS=4 %t3
// RUN: %synthase-cxx -x c++ -fopenmp -O2 -I%inputs %s -o %t4 -lm && env OMP_NUM_THREADS=2 %t4
#include "check.h"
#include <omp.h>

#define N 97

static void two_phase(const double *x, double *tmp, double *y, int n) {
#pragma omp parallel
  {
    int t = omp_get_thread_num(), nt = omp_get_num_threads();
    int lo = (int)((long)n * t / nt), hi = (int)((long)n * (t + 1) / nt);
    for (int i = lo; i < hi; ++i)
      tmp[i] = tanh(x[i]) * (1.0 + 0.01 * t); /* t: the thread's share has its own weight */
#pragma omp barrier
    for (int i = lo; i < hi; ++i) {
      double left = i > 0 ? tmp[i - 1] : 0.0, right = i + 1 < n ? tmp[i + 1] : 0.0;
      y[i] = left * right + tmp[i];
    }
#pragma omp barrier
#pragma omp single
    y[0] += x[n - 1] * x[n - 1];
  }
}

static int g_threads;
static double loss_fd(const double *x, void *ctx) {
  (void)ctx;
  double tmp[N], y[N];
  omp_set_num_threads(g_threads);
  two_phase(x, tmp, y, N);
  double s = 0;
  for (int i = 0; i < N; ++i)
    s += y[i] * (0.5 + 0.01 * i);
  return s;
}

int main(void) {
  double x[N], dx[N], v[N], tmp[N], dtmp[N], y[N], dy[N], fd[N], jv[N];
  check_seed(3);
  check_fill(x, N, -1, 1);
  check_fill(v, N, -1, 1);
  int threads[] = {1, 2, 4};
  for (int t = 0; t < 3; ++t) {
    g_threads = threads[t];
    omp_set_num_threads(threads[t]);
    for (int i = 0; i < N; ++i) {
      dx[i] = dtmp[i] = tmp[i] = y[i] = 0;
      dy[i] = 0.5 + 0.01 * i;
    }
    __enzyme_autodiff((void *)two_phase, enzyme_dup, x, dx, enzyme_dup, tmp, dtmp, enzyme_dup, y, dy, enzyme_const, N);
    check_fd_grad(loss_fd, 0, x, N, fd);
    for (int i = 0; i < N; ++i)
      CHECK_CLOSE(dx[i], fd[i], 1e-7, "two_phase dx[%d] %d threads", i, threads[t]);
    for (int i = 0; i < N; ++i)
      tmp[i] = y[i] = dtmp[i] = jv[i] = 0;
    __enzyme_fwddiff((void *)two_phase, enzyme_dup, x, v, enzyme_dup, tmp, dtmp, enzyme_dup, y, jv, enzyme_const, N);
    for (int i = 0; i < N; ++i)
      dy[i] = 0.5 + 0.01 * i;
    CHECK_CLOSE(check_dot(jv, dy, N), check_dot(dx, v, N), 1e-12, "two_phase fwd/rev %d threads", threads[t]);
  }
  return check_report();
}
