// The C spelling of Rust's #[autodiff_*] attributes (synthase/autodiff.h): annotated placeholders
// are filled by the bridge and their derivatives match the analytic ones, at -O0 and -O2.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t3 -lm && %t3
#include "check.h"
#include <synthase/autodiff.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct { double primal, dx; } Grad;
typedef struct { double t0, t1; } Tangents2;

double square(double x) { return x * x; }
double x2y(double x, double y) { return x * x * y; }
double poly(double x, int n) { return n * x * x * x; }

synthase_autodiff_reverse(square, Active, Active)
Grad dsquare(double x, double seed) { return (Grad){0, 0}; }

// Rust order: the two inputs, then the return activity.
synthase_autodiff_forward(x2y, Dual, Const, DualOnly)
double dx2y_dx(double x, double dx, double y) { return 0; }

synthase_autodiff_forward_width(x2y, 2, Dual, Dual, DualOnly)
Tangents2 dx2y_w2(double x, double dx0, double dx1, double y, double dy0, double dy1) {
  return (Tangents2){0, 0};
}

// The explicit item text, as the attribute carries it.
SYNTHASE_AUTODIFF("source=poly;mode=reverse;ret=ActiveOnly;args=Active,Const")
double dpoly(double x, int n) { return 0; }

#ifdef __cplusplus
}
#endif

int main(void) {
  Grad g = dsquare(3.0, 2.0);
  CHECK_CLOSE(g.primal, 9.0, 1e-12, "dsquare primal");
  CHECK_CLOSE(g.dx, 12.0, 1e-12, "dsquare adjoint");
  CHECK_CLOSE(dx2y_dx(1.5, 1.0, -2.0), 2.0 * 1.5 * -2.0, 1e-12, "dx2y_dx");
  Tangents2 t = dx2y_w2(1.5, 1.0, 0.0, -2.0, 0.0, 1.0);
  CHECK_CLOSE(t.t0, -6.0, 1e-12, "dx2y_w2 lane 0");
  CHECK_CLOSE(t.t1, 2.25, 1e-12, "dx2y_w2 lane 1");
  CHECK_CLOSE(dpoly(2.0, 5), 3.0 * 5 * 4.0, 1e-12, "dpoly");
  return check_report();
}
