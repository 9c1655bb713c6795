// Found by the sanitizer runs (issue 8): with -fsanitize=undefined (float-cast-overflow), clang
// passes the double's bits to the UBSan handler (`bitcast double %x to i64, !nosanitize`) on the
// error path of (int)x, in the default recovering mode (with -fno-sanitize-recover it passes).
// That check code carries no derivative, but forward mode refuses it: "bitcast between a float
// and a non-float type" (reverse mode accepts it).
// RUN: %synthase-cc -O0 -fsanitize=float-cast-overflow %s -o %t0
// RUN: %t0
// RUN: %synthase-cc -O2 -fsanitize=float-cast-overflow %s -o %t2
// RUN: %t2
#include <stdio.h>
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

static double f(double x) {
  int k = (int)x;
  return x * k;
}

int main(void) {
  double r = __enzyme_autodiff((void *)f, 2.5), t = __enzyme_fwddiff((void *)f, 2.5, 1.0);
  printf("%g %g (want 2 2)\n", r, t);
  return !(r == 2 && t == 2);
}
