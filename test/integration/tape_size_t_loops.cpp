// GradBench's ODE shape: an RK4 integrator over std::vector scratch buffers with `size_t` loop
// counters. Clang emits those increments without a no-wrap flag, so the loops were not counted:
// every iteration taped its counter, its predecessor index, the loop-invariant step size and
// data pointers, and the never-written input x (stores through the vectors' `phi [new, null]`
// data pointers counted as unknown writes). The reverse sweep now rebuilds all of that: the tape
// holds the one overwritten state value each stage reads, 8 bytes per element and stage, plus a
// few bytes per loop. Checked with -mllvm -synthase-tape-stats; gradient against central
// differences, forward mode against reverse. Also with a do-while (latch-exiting) loop.
// RUN: %synthase-cxx -O0 -mllvm -synthase-tape-stats -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cxx -O2 -mllvm -synthase-tape-stats -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -O3 -flto -mllvm -synthase-tape-stats -I%inputs %s -o %t3 -lm && %t3
#include "check.h"
#include <algorithm>
#include <vector>

extern "C" long __synthase_tape_peak_v1;

static void ode_fun(size_t n, const double *__restrict__ x, const double *__restrict__ y, double *__restrict__ z) {
  z[0] = x[0];
  for (size_t i = 1; i < n; i++)
    z[i] = x[i] * y[i - 1];
}

static void rk4(size_t n, const double *__restrict__ xi, size_t s, double *__restrict__ yf) {
  double h = 2.0 / double(s);
  std::vector<double> k1(n), k2(n), k3(n), k4(n), y_tmp(n);
  std::fill(yf, yf + n, 1.0);
  for (size_t step = 0; step < s; step++) {
    ode_fun(n, xi, yf, k1.data());
    for (size_t i = 0; i < n; i++)
      y_tmp[i] = yf[i] + h * k1[i] / 2;
    ode_fun(n, xi, y_tmp.data(), k2.data());
    for (size_t i = 0; i < n; i++)
      y_tmp[i] = yf[i] + h * k2[i] / 2;
    ode_fun(n, xi, y_tmp.data(), k3.data());
    for (size_t i = 0; i < n; i++)
      y_tmp[i] = yf[i] + h * k3[i];
    ode_fun(n, xi, y_tmp.data(), k4.data());
    for (size_t i = 0; i < n; i++)
      yf[i] += h * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]) / 6;
  }
}

enum { N = 24, S = 20 };

// The last state as a function of x (for finite differences and forward mode).
static double last(const double *x, int) {
  double y[N];
  rk4(N, x, S, y);
  return y[N - 1] + 0.5 * y[N / 2];
}

// A do-while loop, which stays latch-exiting after simplification.
static double dowhile(const double *x, int n) {
  double s = 0;
  unsigned i = 0;
  do {
    s += x[i] * x[i] * (i + 1);
  } while (++i < (unsigned)n);
  return s;
}

int main() {
  check_seed(23);
  double x[N], g[N], fd[N], v[N], y[N], dy[N] = {0};
  check_fill(x, N, 0.1, 0.6);
  double dummy[N];
  dy[N - 1] = 1;
  dy[N / 2] = 0.5;
  __synthase_tape_peak_v1 = 0;
  std::fill(g, g + N, 0.0);
  __enzyme_autodiff((void *)rk4, enzyme_const, (size_t)N, enzyme_dup, x, g, enzyme_const, (size_t)S,
                    enzyme_dupnoneed, dummy, dy);
  long tape = __synthase_tape_peak_v1;
  check_fd_grad(check_fn_fd_<N, last>, nullptr, x, N, fd);
  for (int i = 0; i < N; i++)
    CHECK_CLOSE(g[i], fd[i], 1e-7, "rk4 d/dx[%d] vs FD", i);
  // 4 stages read one overwritten state value per element: 32 bytes per element and step.
  long bound = 4L * 8 * N * S + 4096;
  CHECK_TRUE(tape > 0 && tape <= bound, "rk4 tape %ld bytes, at most %ld", tape, bound);
  check_fill(v, N, -1, 1);
  double dv[N] = {0};
  __enzyme_fwddiff((void *)rk4, enzyme_const, (size_t)N, enzyme_dup, x, v, enzyme_const, (size_t)S,
                   enzyme_dupnoneed, y, dv);
  CHECK_CLOSE(dv[N - 1] + 0.5 * dv[N / 2], check_dot(g, v, N), 1e-10, "rk4 forward vs reverse");
  (void)y;
  __synthase_tape_peak_v1 = 0;
  check_gradient_fn<N, dowhile>("do-while");
  CHECK_TRUE(__synthase_tape_peak_v1 <= 64, "do-while tape %ld bytes", __synthase_tape_peak_v1);
  return check_report();
}
