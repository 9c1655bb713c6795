// A pointer argument passed without a marker is duplicated (followed by its shadow), except
// where Enzyme's type analysis makes it constant: the operand after it is an integer, so it
// cannot be a shadow, and the function reads only integers through it (`int *len`). Such calls
// were refused ("argument 2 is missing"). Both modes, against the closed form.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
#include "check.h"

static double weighted(double *x, int *len, unsigned n) {
  double s = 0;
  for (unsigned i = 0; i < n; i++)
    s += x[i] * x[i] * len[i];
  return s;
}

int main(void) {
  double x[3] = {0.5, -1.5, 2.0}, dx[3] = {0}, t[3] = {1, 0, 1};
  int len[3] = {1, 2, 3};
  __enzyme_autodiff((void *)weighted, x, dx, len, 3u);
  for (int i = 0; i < 3; i++)
    CHECK_CLOSE(dx[i], 2 * x[i] * len[i], 1e-15, "reverse d/dx%d", i);
  double fw = __enzyme_fwddiff((void *)weighted, x, t, len, 3u);
  CHECK_CLOSE(fw, dx[0] + dx[2], 1e-15, "forward");
  return check_report();
}
