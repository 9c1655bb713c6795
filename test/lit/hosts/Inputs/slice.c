/* The first slice of the engine, checked against analytic derivatives: straight-line scalar code
 * with fadd/fsub/fmul/fdiv/fneg, constants, float casts, libm calls and LLVM intrinsics, in
 * forward and reverse mode, with default and explicit markers. Shared by the host tests (opt,
 * clang, synthase-cc, synthase-opt); compiles as C and as C++. Exit code 0 iff every check holds. */
#include "check.h"

#ifdef __cplusplus
extern "C" {
#endif
typedef struct { double dx, dy; } host_g2;
host_g2 __enzyme_autodiff_g2(void *, ...);
float __enzyme_autodiff_f(void *, ...);
#ifdef __cplusplus
}
#endif

/* f(x, y) = sin(x) y + exp(x y) - x / y + sqrt(x) + pow(y, 3) - log(x) cos(y) */
static double f(double x, double y) {
  return sin(x) * y + exp(x * y) - x / y + sqrt(x) + pow(y, 3.0) - log(x) * cos(y);
}
static double f_dx(double x, double y) {
  return cos(x) * y + y * exp(x * y) - 1.0 / y + 0.5 / sqrt(x) - cos(y) / x;
}
static double f_dy(double x, double y) {
  return sin(x) + x * exp(x * y) + x / (y * y) + 3.0 * y * y + log(x) * sin(y);
}

/* the same through LLVM intrinsics */
static double g(double x) {
  return __builtin_elementwise_sqrt(x) * __builtin_elementwise_exp(-x) + __builtin_elementwise_sin(x);
}
static double g_d(double x) {
  return 0.5 / sqrt(x) * exp(-x) - sqrt(x) * exp(-x) + cos(x);
}

/* float arithmetic and casts: h(x) = (float)x^2 / 3 - 2.5 x */
static float h(float x) { return x * x / 3.0f - (float)(2.5 * (double)x); }

/* y is enzyme_const */
static double scaled(double x, double c) { return -(c * x * x) + c / x; }

int main(void) {
  for (int i = 1; i <= 5; ++i) {
    double x = 0.35 * i, y = 0.7 + 0.15 * i;
    host_g2 r = __enzyme_autodiff_g2((void *)f, x, y);
    CHECK_CLOSE(r.dx, f_dx(x, y), 1e-13, "rev df/dx at %g,%g", x, y);
    CHECK_CLOSE(r.dy, f_dy(x, y), 1e-13, "rev df/dy at %g,%g", x, y);
    r = __enzyme_autodiff_g2((void *)f, enzyme_out, x, enzyme_out, y);
    CHECK_CLOSE(r.dx, f_dx(x, y), 1e-13, "rev (explicit enzyme_out) df/dx");
    CHECK_CLOSE(r.dy, f_dy(x, y), 1e-13, "rev (explicit enzyme_out) df/dy");
    CHECK_CLOSE(__enzyme_fwddiff((void *)f, x, 1.0, y, 0.0), f_dx(x, y), 1e-13, "fwd df/dx");
    CHECK_CLOSE(__enzyme_fwddiff((void *)f, x, 0.0, y, 1.0), f_dy(x, y), 1e-13, "fwd df/dy");
    CHECK_CLOSE(__enzyme_fwddiff((void *)f, enzyme_dup, x, 0.5, enzyme_dup, y, -2.0),
                0.5 * f_dx(x, y) - 2.0 * f_dy(x, y), 1e-13, "fwd directional");

    CHECK_CLOSE(__enzyme_autodiff((void *)g, x), g_d(x), 1e-13, "rev intrinsics at %g", x);
    CHECK_CLOSE(__enzyme_fwddiff((void *)g, x, 1.0), g_d(x), 1e-13, "fwd intrinsics at %g", x);

    float xf = (float)x;
    CHECK_CLOSE(__enzyme_autodiff_f((void *)h, xf), 2.0f * xf / 3.0f - 2.5f, 1e-6, "rev float");

    CHECK_CLOSE(__enzyme_autodiff((void *)scaled, enzyme_out, x, enzyme_const, y),
                -2.0 * y * x - y / (x * x), 1e-13, "rev with enzyme_const");
    CHECK_CLOSE(__enzyme_fwddiff((void *)scaled, x, 1.0, enzyme_const, y),
                -2.0 * y * x - y / (x * x), 1e-13, "fwd with enzyme_const");
  }
  if (check_report())
    return 1;
  printf("slice: %d checks passed\n", check_count_);
  return 0;
}
