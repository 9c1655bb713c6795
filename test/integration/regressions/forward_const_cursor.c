// Regression: forward mode of a loop whose pointer cursor walks enzyme_const data while the
// derivative comes from another (duplicated) array. The cursor's phi has no shadow; its tangent
// phi used to be made anyway, with null incoming values, and the loads through it faulted.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O0 -I%inputs %s -o %t4 -lm && %t4
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t5 -lm && %t5
#include "check.h"

#define NS 5 /* samples of (x0, x1, target) */

/* A two-layer net's hidden sums over samples: the cursor s steps 3 doubles at a time. */
static double nest(const double *data, const double *w, int n) {
  double total = 0;
  for (const double *s = data; s + 3 <= data + n; s += 3) {
    double h[4];
    for (int j = 0; j < 4; ++j)
      h[j] = tanh(w[j] * s[0] + w[4 + j] * s[1]);
    total += h[0] + h[1] + h[2] + h[3] - s[2];
  }
  return total;
}

static double data_[3 * NS];
static double nest_fd(const double *w, void *ctx) { (void)ctx; return nest(data_, w, 3 * NS); }

int main(void) {
  double w[8], dw[8], v[8], g[8];
  check_seed(7);
  for (int i = 0; i < 3 * NS; ++i)
    data_[i] = check_uniform(-1, 1);
  for (int i = 0; i < 8; ++i) {
    w[i] = check_uniform(-1, 1);
    v[i] = check_uniform(-1, 1);
    dw[i] = 0;
  }
  check_fd_grad(nest_fd, 0, w, 8, g);
  double t = __enzyme_fwddiff((void *)nest, enzyme_const, data_, enzyme_dup, w, v, enzyme_const, 3 * NS);
  CHECK_CLOSE(t, check_dot(g, v, 8), 1e-7, "fwd nest vs FD");
  __enzyme_autodiff((void *)nest, enzyme_const, data_, enzyme_dup, w, dw, enzyme_const, 3 * NS);
  for (int i = 0; i < 8; ++i)
    CHECK_CLOSE(dw[i], g[i], 1e-7, "rev nest d[%d] vs FD", i);
  CHECK_CLOSE(t, check_dot(dw, v, 8), 1e-12, "fwd vs rev");
  return check_report();
}
