// realloc inside differentiated code: a buffer of active values grown by doubling while the
// loop runs (the shadow buffer must follow the primal's reallocations), in both modes.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
#include "check.h"

#define N 9

/* grows a buffer with realloc while accumulating */
static double grow_realloc(const double *x, int n) {
  int cap = 1, len = 0;
  double *buf = (double *)malloc(sizeof(double) * cap);
  for (int i = 0; i < n; ++i) {
    if (len == cap) {
      cap *= 2;
      buf = (double *)realloc(buf, sizeof(double) * cap);
    }
    buf[len] = x[i] * x[i] + (len > 0 ? buf[len - 1] : 0.0);
    ++len;
  }
  double r = 0;
  for (int i = 0; i < len; ++i)
    r += sqrt(buf[i]);
  free(buf);
  return r;
}

static double grow_fd(const double *x, void *c) {
  (void)c;
  return grow_realloc(x, N);
}

int main(void) {
  check_seed(89);
  for (int t = 0; t < 4; ++t) {
    double x[N], dx[N], g[N], v[N];
    check_fill(x, N, 0.2, 1.5);
    memset(dx, 0, sizeof dx);
    __enzyme_autodiff((void *)grow_realloc, x, dx, N);
    check_fd_grad(grow_fd, 0, x, N, g);
    for (int i = 0; i < N; ++i)
      CHECK_CLOSE(dx[i], g[i], 1e-7, "rev grow_realloc d[%d] vs FD", i);
    check_fill(v, N, -1, 1);
    double tf = __enzyme_fwddiff((void *)grow_realloc, x, v, N);
    CHECK_CLOSE(tf, check_dot(g, v, N), 1e-7, "fwd grow_realloc vs FD");
    CHECK_CLOSE(tf, check_dot(dx, v, N), 1e-12, "grow_realloc dot test");
  }
  return check_report();
}
