// RUN: %synthase-cc -O0 %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native %s -o %t3 -lm && %t3
// Found by fuzzgen --mem 1 (intmove feature): seed 43 index 22 (-O0, -O2) and seed 55 index 38
// (-O0 .. -O3 -march=native), reduced by hand.
// An element is written as a double on one side of a branch and with another element's bits through
// a uint64_t (memcpy) on the other side; the memory involved is also read as double nearby. Taking
// the double side, the derivative of the stored value is lost in both modes (the other side is right).
// Plain `clang-22 -O2 -emit-llvm` shows (2) as one `store i64 (phi i64 [bitcast double %v], [load i64])`
// after the branch: an integer phi whose incoming value is a bitcast active double.
// Same at -O0 and -O2:  build/bin/synthase-cc -O2 intmove_branch_merge.c -o r -lm && ./r
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
extern int enzyme_dup, enzyme_const;
double __enzyme_fwddiff(void *, ...);
double __enzyme_autodiff(void *, ...);

/* (1) seed 55 index 38: the moved element is read as a double in the condition */
static void g(double *o, double x) {
  if (sin(x) + o[2] > 0.0) {
    o[0] = sqrt(1.0 + x * x);
  } else {
    uint64_t b;
    memcpy(&b, &o[2], 8);
    memcpy(&o[0], &b, 8);
  }
}

/* (2) seed 43 index 22: the overwritten element is read as a double first */
static double f(double *a, double c) {
  double t = a[1];
  if (c > 0.0) {
    a[1] *= 1.5;
  } else {
    uint64_t b;
    memcpy(&b, &a[0], 8);
    memcpy(&a[1], &b, 8);
  }
  return t;
}

int main(void) {
  int bad = 0;
  {
    double o[3] = {0.5, 0.5, 0.5}, d[3] = {0, 0, 0};
    __enzyme_fwddiff((void *)g, enzyme_dup, o, d, 0.5, 1.0); /* dx = 1 */
    double want = 0.5 / sqrt(1.25);
    printf("(1) forward: do[0] = %g (want %g)\n", d[0], want);
    double q[3] = {0.5, 0.5, 0.5}, dq[3] = {1, 0, 0};
    double gx = __enzyme_autodiff((void *)g, enzyme_dup, q, dq, 0.5);
    printf("(1) reverse (adjoint 1 on o[0]): dx = %g (want %g)\n", gx, want);
    bad |= fabs(d[0] - want) > 1e-15 || fabs(gx - want) > 1e-15;
  }
  for (int k = 0; k < 2; ++k) {
    double c = k ? -1.0 : 1.0;
    double wf = c > 0 ? 1.5 : 0.0;
    double a[2] = {1.5, 2.5}, da[2] = {0.0, 1.0};
    double r = __enzyme_fwddiff((void *)f, enzyme_dup, a, da, enzyme_const, c);
    printf("(2) c=%+g forward, tangent {0, 1}: ret' = %g (want 1), da = {%g, %g} (want {0, %g})\n", c, r, da[0],
           da[1], wf);
    /* reverse: adjoint 1 on the return and on the final a[1] */
    double b[2] = {1.5, 2.5}, db[2] = {0.0, 1.0};
    __enzyme_autodiff((void *)f, enzyme_dup, b, db, enzyme_const, c);
    double w0 = c > 0 ? 0.0 : 1.0, w1 = 1.0 + wf;
    printf("(2) c=%+g reverse, adjoints ret 1, a[1] 1: db = {%g, %g} (want {%g, %g})\n", c, db[0], db[1], w0, w1);
    bad |= r != 1 || da[0] != 0 || da[1] != wf || db[0] != w0 || db[1] != w1;
  }
  printf(bad ? "WRONG\n" : "ok\n");
  return bad;
}
