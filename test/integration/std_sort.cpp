// std::sort on active doubles: inlined, the swaps are loads and stores the engine already follows.
// The adjoint of each element returns to its original position; both modes agree.
// RUN: %synthase-cxx -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cxx -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
#include "check.h"
#include <algorithm>
#define N 9
static double f(double *x, int n) {
  std::sort(x, x + n);
  double s = 0;
  for (int i = 0; i < n; i++) s += (i + 1) * x[i] * x[i];
  return s;
}
int main() {
  double x[N], dx[N] = {0}, x0[N];
  check_seed(3);
  for (int i = 0; i < N; i++) x0[i] = x[i] = check_uniform(-2, 2);
  __enzyme_autodiff((void *)f, x, dx, N);
  double s[N];
  std::copy(x0, x0 + N, s);
  std::sort(s, s + N);
  for (int i = 0; i < N; i++) {
    int r = std::find(s, s + N, x0[i]) - s;
    CHECK_CLOSE(dx[i], 2 * (r + 1) * x0[i], 1e-9, "reverse %d", i);
    double y[N], v[N] = {0};
    std::copy(x0, x0 + N, y);
    v[i] = 1;
    double t = __enzyme_fwddiff((void *)f, y, v, N);
    CHECK_CLOSE(t, dx[i], 1e-9, "forward %d", i);
  }
  return check_report();
}
