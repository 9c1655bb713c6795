// __enzyme_ptr_size_hint(ptr, bytes, ...) tells Enzyme the extent of memory behind a pointer. It
// is accepted and dropped (also where nothing is differentiated, so the program links), and the
// derivatives are unchanged: reverse mode against the analytic gradient of a product recurrence,
// forward mode against reverse mode (dot-product test), and central differences.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -x c++ -O3 -I%inputs %s -o %t3 -lm && %t3
#include "check.h"
#include <math.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C"
#endif
void __enzyme_ptr_size_hint(void *, size_t, size_t);

enum { N = 4 };

__attribute__((noinline)) static void step(double *u, long steps) {
  __enzyme_ptr_size_hint(u, N * sizeof(double), 0);
  for (long i = 0; i < steps; i++)
    u[i % N] = u[i % N] * sin(u[(i + 1) % N]);
}
static double loss(double *u, long steps) {
  step(u, steps);
  return u[0] + 2 * u[1] + 3 * u[2] + 4 * u[3];
}
static double loss_fd(const double *x, void *c) {
  double u[N];
  for (int k = 0; k < N; ++k)
    u[k] = x[k];
  return loss(u, *(long *)c);
}

int main(void) {
  const double x0[N] = {1.1, 0.7, -0.4, 1.3};
  long steps = 6;
  double u[N], du[N] = {0}, fd[N];
  for (int k = 0; k < N; ++k)
    u[k] = x0[k];
  __enzyme_autodiff((void *)loss, enzyme_dup, u, du, enzyme_const, steps);
  check_fd_grad(loss_fd, &steps, x0, N, fd);
  for (int k = 0; k < N; ++k)
    CHECK_CLOSE(du[k], fd[k], 1e-7, "gradient [%d] vs FD", k);
  const double v[N] = {0.3, -1.0, 0.5, 2.0};
  double dv[N]; // the tangent of u, updated in place as u is
  for (int k = 0; k < N; ++k) {
    u[k] = x0[k];
    dv[k] = v[k];
  }
  double t = __enzyme_fwddiff((void *)loss, enzyme_dup, u, dv, enzyme_const, steps);
  CHECK_CLOSE(t, check_dot(du, v, N), 1e-13, "forward tangent vs <gradient, v>");
  // The primal, outside any derivative, still calls the hint.
  for (int k = 0; k < N; ++k)
    u[k] = x0[k];
  CHECK_TRUE(isfinite(loss(u, steps)), "the primal runs");
  return check_report();
}
