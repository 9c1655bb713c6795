// A custom derivative for a function without a body: ddot is only declared here (its body is in
// Inputs/custom_ddot_impl.c, compiled separately), and registered with a forward derivative and a
// gradient in Enzyme's convention (the integer n is followed by its "shadow", the pointers by
// theirs). Used in forward, reverse and vector forward mode (the derivative is called once per
// lane); forward and reverse agree; both agree with the analytic gradient.
// RUN: %synthase-cc -O0 -I%inputs %s %inputs/custom_ddot_impl.c -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s %inputs/custom_ddot_impl.c -o %t2 -lm && %t2
// RUN: %synthase-cxx -x c++ -O0 -I%inputs %s %inputs/custom_ddot_impl.c -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s %inputs/custom_ddot_impl.c -o %t4 -lm && %t4
#include "check.h"

#ifdef __cplusplus
extern "C" {
#endif
double ddot(int n, const double *x, const double *y);
#ifdef __cplusplus
}
#endif

static int fwd_calls, aug_calls, rev_calls;

/* Forward: each argument followed by its tangent; returns the tangent. */
static double ddot_fwd(int n, int dn, const double *x, const double *dx, const double *y, const double *dy) {
  (void)dn;
  ++fwd_calls;
  double t = 0;
  for (int i = 0; i < n; ++i)
    t += dx[i] * y[i] + x[i] * dy[i];
  return t;
}
/* Augmented: returns the primal result (no tape needed). */
static double ddot_aug(int n, int dn, const double *x, double *dx, const double *y, double *dy) {
  (void)dn, (void)dx, (void)dy;
  ++aug_calls;
  return ddot(n, x, y);
}
/* Reverse: the arguments with shadows, then the return adjoint; adds into the shadows. */
static void ddot_rev(int n, int dn, const double *x, double *dx, const double *y, double *dy, double dret) {
  (void)dn;
  ++rev_calls;
  for (int i = 0; i < n; ++i) {
    dx[i] += dret * y[i];
    dy[i] += dret * x[i];
  }
}

void *__enzyme_register_derivative_ddot[2] = {(void *)ddot, (void *)ddot_fwd};
void *__enzyme_register_gradient_ddot[3] = {(void *)ddot, (void *)ddot_aug, (void *)ddot_rev};

#define N 4

/* f(x, y) = (x.y) * (x.x) + sin(x.y) */
static double f(const double *x, const double *y) {
  double a = ddot(N, x, y), b = ddot(N, x, x);
  return a * b + sin(a);
}

static void grad_exact(const double *x, const double *y, double *gx, double *gy) {
  double a = 0, b = 0;
  for (int i = 0; i < N; ++i)
    a += x[i] * y[i], b += x[i] * x[i];
  for (int i = 0; i < N; ++i) {
    gx[i] = (b + cos(a)) * y[i] + a * 2 * x[i];
    gy[i] = (b + cos(a)) * x[i];
  }
}

typedef struct { double d[2]; } T2;
T2 __enzyme_fwddiff_w2(void *, ...);

int main(void) {
  double x[N] = {0.3, -1.2, 0.7, 2.0}, y[N] = {1.5, 0.4, -0.6, 0.25};
  double gx[N], gy[N];
  grad_exact(x, y, gx, gy);

  /* reverse */
  double dx[N] = {0}, dy[N] = {0};
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_dup, y, dy);
  for (int i = 0; i < N; ++i) {
    CHECK_CLOSE(dx[i], gx[i], 1e-12, "reverse df/dx[%d]", i);
    CHECK_CLOSE(dy[i], gy[i], 1e-12, "reverse df/dy[%d]", i);
  }
  CHECK_TRUE(aug_calls == 2 && rev_calls == 2, "custom gradient used: aug %d rev %d", aug_calls, rev_calls);

  /* forward, one direction per input component; must match reverse */
  for (int k = 0; k < N; ++k) {
    double vx[N] = {0}, vy[N] = {0};
    vx[k] = 1;
    double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, vx, enzyme_dup, y, vy);
    CHECK_CLOSE(t, dx[k], 1e-12, "forward df/dx[%d] = reverse", k);
  }
  CHECK_TRUE(fwd_calls == 2 * N, "custom derivative used: %d calls", fwd_calls);

  /* vector forward: two directions at once, one call of the derivative per lane */
  fwd_calls = 0;
  double v0[N] = {1, 0, 0, 0}, v1[N] = {0, 0, 0, 0}, w0[N] = {0}, w1[N] = {0, 0, 1, 0};
  T2 tv = __enzyme_fwddiff_w2((void *)f, enzyme_width, 2, enzyme_dup, x, v0, v1, enzyme_dup, y, w0, w1);
  CHECK_CLOSE(tv.d[0], gx[0], 1e-12, "vector lane 0");
  CHECK_CLOSE(tv.d[1], gy[2], 1e-12, "vector lane 1");
  CHECK_TRUE(fwd_calls == 2 * 2, "one derivative call per lane: %d", fwd_calls);

  /* the primal still uses the real body */
  CHECK_CLOSE(f(x, y), ddot(N, x, y) * ddot(N, x, x) + sin(ddot(N, x, y)), 1e-15, "primal");
  return check_report();
}
