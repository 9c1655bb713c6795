// A struct too large for registers is passed by value in memory (a byval pointer in the IR). It
// takes a shadow like a pointer: a second struct after it, which receives the gradient in
// reverse mode (written back into the caller's variable) and holds the tangent in forward mode;
// both checked against the analytic derivative. Without that struct the call is refused, and the
// hint says what to pass.
// RUN: not %synthase-cc -O0 -DMISSING -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: %synthase-cc -O0 %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 %s -o %t2 -lm && %t2
#include <math.h>
#include <stdio.h>

typedef struct { double a, b, c, d; } V4;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

static double f(V4 v) { return v.a * v.b + sin(v.c) * v.d; }

int main(void) {
  V4 v = {1.5, -2, 3, 4};
#ifdef MISSING
  // CHECK: error: synthase: {{.*}}missing shadow for argument 0 of 'f'
  // CHECK: hint: the argument is a struct passed by value (in memory): pass a second struct after it
  return __enzyme_autodiff((void *)f, v) != 0;
#else
  V4 g = {0, 0, 0, 0};
  __enzyme_autodiff((void *)f, v, g);
  V4 want = {v.b, v.a, cos(v.c) * v.d, sin(v.c)};
  double gs[4] = {g.a, g.b, g.c, g.d}, ws[4] = {want.a, want.b, want.c, want.d};
  int bad = 0;
  for (int i = 0; i < 4; i++) {
    V4 e = {i == 0, i == 1, i == 2, i == 3};
    double t = __enzyme_fwddiff((void *)f, v, e);
    if (fabs(gs[i] - ws[i]) > 1e-15 || fabs(t - ws[i]) > 1e-15) {
      printf("field %d: reverse %g forward %g want %g\n", i, gs[i], t, ws[i]);
      bad = 1;
    }
  }
  return bad;
#endif
}
