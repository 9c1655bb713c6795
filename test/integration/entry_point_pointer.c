// The entry point called through a local function-pointer variable (a typed pointer, as some
// code bases write it): lowered at every optimization level, and the program links at -O0.
// RUN: %synthase-cc -O0 %s -o %t0 && %t0
// RUN: %synthase-cc -O1 %s -o %t1 && %t1
// RUN: %synthase-cc -O2 %s -o %t2 && %t2
#include <stdio.h>
typedef struct { double dx, dy; } G;
G __enzyme_autodiff(void *, ...);
static double sq(double x, double y) { return x * x * y; }
int main(void) {
  G (*ad)(void *, double, double) = (G(*)(void *, double, double))__enzyme_autodiff;
  G g = ad((void *)sq, 3.0, 2.0);
  // d(x^2 y)/dx = 2xy = 12, d/dy = x^2 = 9
  if (g.dx != 12 || g.dy != 9) {
    printf("got %g %g, want 12 9\n", g.dx, g.dy);
    return 1;
  }
  return 0;
}
