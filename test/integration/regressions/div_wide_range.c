// Found by the probe with Enzyme's integration tests (issue 14): the partial of a/b in b was
// formed as -a/(b*b), and b*b overflows to infinity (or underflows to 0) long before a/b leaves
// the double range. At b = 1e160 the derivative of x/y in y came out -0 instead of -1/b, silently,
// in forward and reverse mode; at b = 1e-160 it came out -inf. The partial is now -(a/b)/b.
// Second derivatives (forward over forward, forward over reverse) divide twice more, so they are
// checked at 1e80 where y^3 is out of range too.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
#include "check.h"

static double quot(double x, double y) { return x / y; }
static double quot_dy_fwd(double x, double y) { return __enzyme_fwddiff((void *)quot, x, 0.0, y, 1.0); }
typedef struct { double dx, dy; } grad2;
grad2 __enzyme_autodiff_q(void *, ...);
static double dy_rev(double x, double y) { return __enzyme_autodiff_q((void *)quot, x, y).dy; }
static double dx_rev(double x, double y) { return __enzyme_autodiff_q((void *)quot, x, y).dx; }
static double d2_fwd_fwd(double x, double y) { return __enzyme_fwddiff((void *)quot_dy_fwd, x, 0.0, y, 1.0); }
static double d2_fwd_rev(double x, double y) { return __enzyme_fwddiff((void *)dy_rev, x, 0.0, y, 1.0); }
static double dxdy_fwd_rev(double x, double y) { return __enzyme_fwddiff((void *)dx_rev, x, 0.0, y, 1.0); }

int main(void) {
  const double big[] = {1e160, 1e300, 3.5e200};
  for (int k = 0; k < 3; ++k) {
    double y = big[k], x = 0.75 * y; /* x/y = 0.75, d/dy = -0.75/y */
    CHECK_CLOSE(quot_dy_fwd(x, y) * y, -0.75, 1e-14, "forward d(x/y)/dy at y = %g", y);
    CHECK_CLOSE(dy_rev(x, y) * y, -0.75, 1e-14, "reverse d(x/y)/dy at y = %g", y);
  }
  const double tiny[] = {1e-160, 1e-300, 2.5e-200};
  for (int k = 0; k < 3; ++k) {
    double y = tiny[k], x = -1.25 * y;
    CHECK_CLOSE(quot_dy_fwd(x, y) * y, 1.25, 1e-14, "forward d(x/y)/dy at y = %g", y);
    CHECK_CLOSE(dy_rev(x, y) * y, 1.25, 1e-14, "reverse d(x/y)/dy at y = %g", y);
    CHECK_CLOSE(dx_rev(x, y) * y, 1.0, 1e-14, "reverse d(x/y)/dx at y = %g", y);
  }
  /* d2/dy2 (x/y) = 2x/y^3, d2/dxdy = -1/y^2: y^3 overflows at 1e80 */
  double y = 1e80, x = 1.0;
  CHECK_CLOSE(d2_fwd_fwd(x, y) * y * y * y, 2.0, 1e-13, "forward over forward d2/dy2 at 1e80");
  CHECK_CLOSE(d2_fwd_rev(x, y) * y * y * y, 2.0, 1e-13, "forward over reverse d2/dy2 at 1e80");
  CHECK_CLOSE(dxdy_fwd_rev(x, y) * y * y, -1.0, 1e-13, "forward over reverse d2/dxdy at 1e80");
  /* ordinary range: the same partials against central differences */
  x = 1.3; y = -0.7;
  double h = 1e-6;
  double fd = (quot(x, y + h) - quot(x, y - h)) / (2 * h);
  CHECK_CLOSE(quot_dy_fwd(x, y), fd, 1e-8, "forward d(x/y)/dy vs FD");
  CHECK_CLOSE(dy_rev(x, y), fd, 1e-8, "reverse d(x/y)/dy vs FD");
  double fd2 = (quot_dy_fwd(x, y + h) - quot_dy_fwd(x, y - h)) / (2 * h);
  CHECK_CLOSE(d2_fwd_rev(x, y), fd2, 1e-6, "forward over reverse d2/dy2 vs FD");
  return check_report();
}
