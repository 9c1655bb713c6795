/* The declarative front door from C: Rust's
 *     #[autodiff_reverse(dsquare, Active, Active)]
 *     #[autodiff_forward(dpoly, Dual, Const, DualOnly)]
 * written as attributes on placeholders whose bodies Synthase replaces.
 *
 *   build/bin/synthase-cc -O2 examples/bridge/declarative.c -o declarative && ./declarative
 */
#include <stdio.h>
#include <synthase/autodiff.h>

/* Sources must be emitted (not static-and-unused) and, in C++, extern "C". */
double square(double x) { return x * x; }
double poly(double x, int n) { return n * x * x * x; }

/* Active return in reverse mode: (primal, seed * d/dx); the seed comes last. */
typedef struct { double primal, dx; } Grad;
synthase_autodiff_reverse(square, Active, Active)
Grad dsquare(double x, double seed) { return (Grad){0, 0}; }

/* Forward mode, x carries a tangent, n is constant, only the tangent is returned. */
synthase_autodiff_forward(poly, Dual, Const, DualOnly)
double dpoly(double x, double dx, int n) { return 0; }

int main(void) {
  Grad g = dsquare(3.0, 1.0);
  printf("square(3) = %g, d/dx = %g\n", g.primal, g.dx);         /* 9, 6 */
  printf("d/dx 4x^3 at 2 = %g\n", dpoly(2.0, 1.0, 4));            /* 48 */
  return 0;
}
