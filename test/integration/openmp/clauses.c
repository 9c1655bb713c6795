// Clauses of `parallel for` inside differentiated code: a `firstprivate` double (clang passes it
// to the region by value, as the bits of an i64; the differentiated clone passes it by address),
// `num_threads(3)` (the reverse region runs on a team of the same size), `collapse(2)`,
// `lastprivate` (static schedule: clang 22 + libomp 22 lose the lastprivate copy-out of a
// dynamic schedule in about a third of the runs, in the primal, without Synthase), and a region inside a callee that is called twice. Checked against analytic
// gradients, forward against reverse, across 1, 2 and 4 threads.
// RUN: %synthase-cc -fopenmp -O0 -I%inputs %s -o %t0 -lm && env OMP_NUM_THREADS=1 %t0 && env OMP_NUM_THREADS=2 %t0 && env OMP_NUM_THREADS=4 %t0
// RUN: %synthase-cc -fopenmp -O2 -I%inputs %s -o %t2 -lm && env OMP_NUM_THREADS=1 %t2 && env OMP_NUM_THREADS=2 %t2 && env OMP_NUM_THREADS=4 %t2
// RUN: %synthase-cc -fopenmp -O3 -march=native -I%inputs %s -o %t3 -lm && env OMP_NUM_THREADS=4 %t3
// RUN: %synthase-cxx -x c++ -fopenmp -O0 -I%inputs %s -o %t4 -lm && env OMP_NUM_THREADS=2 %t4
// RUN: %synthase-cxx -x c++ -fopenmp -O2 -I%inputs %s -o %t5 -lm && env OMP_NUM_THREADS=4 %t5
#include "check.h"
#include <omp.h>

#define N 64
#define R 9
#define C 7

/* sum_i a^2 x_i^3 + a, a firstprivate, on 3 threads */
static double firstpriv(const double *x, double a, int n) {
  double s = 0;
#pragma omp parallel for firstprivate(a) reduction(+ : s) num_threads(3)
  for (int i = 0; i < n; ++i)
    s += a * a * x[i] * x[i] * x[i];
  return s + a;
}

/* out[r][c] = m[r][c] * m[r][(c+1) % C] over a collapsed 2-D loop; last = the last row's square */
static double collapsed(const double *m, double *out) {
  double last = 0;
#pragma omp parallel for collapse(2) schedule(static) lastprivate(last)
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) {
      out[r * C + c] = m[r * C + c] * m[r * C + (c + 1) % C];
      last = m[r * C + c] * m[r * C + c];
    }
  return last;
}

/* a region in a helper called twice, on data the first call wrote */
static void smooth(const double *in, double *out, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; ++i)
    out[i] = 0.5 * in[i] + 0.25 * (in[i > 0 ? i - 1 : i] + in[i < n - 1 ? i + 1 : i]);
}
static double twice(const double *x, double *tmp, double *tmp2, int n) {
  smooth(x, tmp, n);
  smooth(tmp, tmp2, n);
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += tmp2[i] * tmp2[i];
  return s;
}
static double twice_fd(const double *x, void *ctx) {
  (void)ctx;
  double t[N], t2[N];
  return twice(x, t, t2, N);
}

int main(void) {
  double x[N], dx[N], v[N], m[R * C], dm[R * C], out[R * C], dout[R * C], vm[R * C], jo[R * C];
  double tmp[N], dtmp[N], tmp2[N], dtmp2[N], fd[N];
  check_seed(21);
  check_fill(x, N, -1, 1);
  check_fill(v, N, -1, 1);
  check_fill(m, R * C, -1, 1);
  check_fill(vm, R * C, -1, 1);
  int threads[] = {1, 2, 4};
  for (int t = 0; t < 3; ++t) {
    omp_set_num_threads(threads[t]);
    double a = 1.3, s3 = 0, s4 = 0;
    for (int i = 0; i < N; ++i) {
      dx[i] = 0;
      s3 += x[i] * x[i] * x[i];
    }
    double da = __enzyme_autodiff((void *)firstpriv, enzyme_dup, x, dx, a, enzyme_const, N);
    CHECK_CLOSE(da, 2 * a * s3 + 1, 1e-13, "firstprivate d/da %d threads", threads[t]);
    for (int i = 0; i < N; ++i) {
      CHECK_CLOSE(dx[i], 3 * a * a * x[i] * x[i], 1e-13, "firstprivate dx[%d] %d threads", i, threads[t]);
      s4 += dx[i] * v[i];
    }
    double jv = __enzyme_fwddiff((void *)firstpriv, enzyme_dup, x, v, a, 0.5, enzyme_const, N);
    CHECK_CLOSE(jv, s4 + 0.5 * da, 1e-12, "firstprivate fwd/rev %d threads", threads[t]);

    for (int k = 0; k < R * C; ++k) {
      dm[k] = 0;
      out[k] = 0;
      dout[k] = 0.1 * (k % 5) - 0.2;
    }
    double seed_last = 0.7;
    __enzyme_autodiff((void *)collapsed, enzyme_dup, m, dm, enzyme_dup, out, dout, seed_last);
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < C; ++c) {
        int k = r * C + c, prev = r * C + (c + C - 1) % C, next = r * C + (c + 1) % C;
        double want = (0.1 * (k % 5) - 0.2) * m[next] + (0.1 * (prev % 5) - 0.2) * m[prev];
        if (k == R * C - 1)
          want += seed_last * 2 * m[k];
        CHECK_CLOSE(dm[k], want, 1e-14, "collapse dm[%d] %d threads", k, threads[t]);
      }
    for (int k = 0; k < R * C; ++k)
      out[k] = jo[k] = 0;
    double jl = __enzyme_fwddiff((void *)collapsed, enzyme_dup, m, vm, enzyme_dup, out, jo);
    double lhs = jl * seed_last, rhs = 0;
    for (int k = 0; k < R * C; ++k) {
      lhs += jo[k] * (0.1 * (k % 5) - 0.2);
      rhs += dm[k] * vm[k];
    }
    CHECK_CLOSE(lhs, rhs, 1e-12, "collapse fwd/rev %d threads", threads[t]);

    for (int i = 0; i < N; ++i)
      dx[i] = dtmp[i] = dtmp2[i] = 0;
    __enzyme_autodiff((void *)twice, enzyme_dup, x, dx, enzyme_dup, tmp, dtmp, enzyme_dup, tmp2, dtmp2, enzyme_const, N);
    check_fd_grad(twice_fd, 0, x, N, fd);
    for (int i = 0; i < N; ++i)
      CHECK_CLOSE(dx[i], fd[i], 1e-8, "twice dx[%d] %d threads", i, threads[t]);
    for (int i = 0; i < N; ++i)
      dtmp[i] = dtmp2[i] = 0;
    double jt = __enzyme_fwddiff((void *)twice, enzyme_dup, x, v, enzyme_dup, tmp, dtmp, enzyme_dup, tmp2, dtmp2,
                                 enzyme_const, N);
    CHECK_CLOSE(jt, check_dot(dx, v, N), 1e-12, "twice fwd/rev %d threads", threads[t]);
  }
  return check_report();
}
