// Found by the fuzz generator on the standalone path (issue 8; seed 77 index 4): synthase-opt on
// the IR clang-22 -O2 emits (no plugin) for a reverse call through a recursive helper turns
// augmented_f into `unreachable` (already with -no-postopt), so the whole of main folds to
// `unreachable` and the program dies (exit 48 here; a hang or wrong primal memory in the larger
// generated program). The same program through synthase-cc -O2 is right.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O2 -S -emit-llvm %s -o %t/red.ll
// RUN: %synthase-opt %t/red.ll -o %t/red.bc
// RUN: %clang %t/red.bc -o %t/red -lm
// RUN: timeout 60 %t/red
#include <math.h>
#include <stdio.h>
#include <string.h>
extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);

static double h2(double u, int d) {
  if (d <= 0)
    return u;
  return 0.75 * h2(sin(u), d - 1);
}
static double f(double x0, double *a, int n) {
  double t0 = x0;
  t0 += h2(a[1], 3);
  return t0;
}
int main(void) {
  double a[3] = {0.5, 0.25, -0.5}, da[3] = {0, 0, 0};
  double g = __enzyme_autodiff((void *)f, enzyme_out, 0.3, enzyme_dup, a, da, enzyme_const, 3);
  double want = 0.75 * 0.75 * 0.75 * cos(sin(sin(0.25))) * cos(sin(0.25)) * cos(0.25);
  printf("g %g (want 1)  da[1] %.12g (want %.12g)  a %g %g %g\n", g, da[1], want, a[0], a[1], a[2]);
  return !(g == 1 && fabs(da[1] - want) < 1e-12 && a[1] == 0.25);
}
