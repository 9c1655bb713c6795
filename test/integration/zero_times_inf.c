// Zero times infinity is zero: a rule whose partial is infinite or NaN at a finite point (sqrt and
// cbrt at 0, log at 0, asin/acos at ±1, atan2 and hypot at the origin, a division by 0, pow and
// powi at 0, the gamma poles) must add exactly 0 when its incoming derivative (tangent, adjoint, or
// one lane of either) is 0. Typical sources of a zero incoming derivative: the branch a guard did
// not take (`r2 > 0 ? sqrt(r2) : 0`, if-converted into a select at -O2), an argument whose tangent
// is 0, a vector lane whose seed is 0. Every value is checked against the analytic derivative of
// the branch actually taken: exactly 0 where that is 0, finite and within 1e-14 elsewhere, and
// forward and reverse mode must agree. Inputs are read through volatile so nothing folds.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cc -O2 -ffast-math -I%inputs %s -o %t5 -lm && %t5
// RUN: %synthase-cxx -x c++ -O0 -I%inputs %s -o %t6 -lm && %t6
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t7 -lm && %t7
// RUN: %synthase-cxx -x c++ -O2 -ffast-math -I%inputs %s -o %t8 -lm && %t8
#include "check.h"

typedef struct { double dx, dy; } G2;
typedef struct { double dx, dy, dz; } G3;
typedef struct { double d[2]; } T2;
typedef struct { float dx, dy; } G2f;
typedef double v2d __attribute__((vector_size(16)));
#ifdef __cplusplus
extern "C" {
#endif
G2 __enzyme_autodiff_g2(void *, ...);
G3 __enzyme_autodiff_g3(void *, ...);
T2 __enzyme_fwddiff_w2(void *, ...);
G2f __enzyme_autodiff_g2f(void *, ...);
float __enzyme_fwddiff_f(void *, ...);
#ifdef __cplusplus
}
#endif

static double in(double v) {
  volatile double t = v;
  return t;
}
static volatile int zero_exponent = 0;

/* Exactly `want` when that is 0 (either sign), otherwise finite and within 1e-14. */
static void check_value(double got, double want, const char *what, double x, double y) {
  CHECK_TRUE(!check_nonfinite(got), "%s at (%g, %g) is finite: got %g", what, x, y, got);
  if (want == 0)
    CHECK_TRUE(got == 0, "%s at (%g, %g) is exactly 0: got %.17g", what, x, y, got);
  else
    CHECK_CLOSE(got, want, 1e-14, "%s at (%g, %g)", what, x, y);
}

/* Reverse gradient of f at (x, y) against (gx, gy); forward mode along (vx, vy) against the
   analytic directional derivative and against the reverse gradient. */
#define CHECK2(f, x0, y0, gx, gy, vx, vy)                                                          \
  do {                                                                                             \
    double x_ = in(x0), y_ = in(y0);                                                               \
    G2 g_ = __enzyme_autodiff_g2((void *)f, x_, y_);                                               \
    check_value(g_.dx, (gx), "rev d/dx " #f, x_, y_);                                              \
    check_value(g_.dy, (gy), "rev d/dy " #f, x_, y_);                                              \
    double t_ = __enzyme_fwddiff((void *)f, x_, in(vx), y_, in(vy));                               \
    check_value(t_, (gx) * (vx) + (gy) * (vy), "fwd along (" #vx ", " #vy ") " #f, x_, y_);        \
    check_value(t_, g_.dx * (vx) + g_.dy * (vy), "fwd vs rev " #f, x_, y_);                       \
  } while (0)

/* ---- the guarded normalisation and the untaken branch ---- */
static double norm_guard(double x, double y) {
  double r2 = x * x + y * y;
  double n = r2 > 0 ? sqrt(r2) : 0;
  return n + 3 * x - y;
}
static double unit_x(double x, double y) {
  double r2 = x * x + y * y;
  return r2 > 0 ? x / sqrt(r2) : 0;
}
static double branch_hyp(double x, double y) {
  double r;
  if (x > 1)
    r = sqrt(x * x + y * y);
  else
    r = x + 2 * y;
  return r;
}

/* ---- pow and powi at 0 ---- */
static double pow_xy(double x, double y) { return pow(x, y); }
static double pow_half(double x, double y) { return y * pow(x, 0.5) + y; }
static double powi_neg(double x, double y) { return x != 0 ? __builtin_powi(x, -2) : y; }
static double powi_zero(double x, double y) { return __builtin_powi(x, zero_exponent) * y; }

/* ---- logarithms, inverse trigonometric and hyperbolic functions, division, gamma ---- */
static double log_guard(double x, double y) { return x > 0 ? log(x) : y; }
static double log2_guard(double x, double y) { return x > 0 ? log2(x) : y; }
static double log10_guard(double x, double y) { return x > 0 ? log10(x) : y; }
static double log1p_guard(double x, double y) { return x > -1 ? log1p(x) : y; }
static double atan2_guard(double x, double y) { return (x != 0 || y != 0) ? atan2(y, x) : x + y; }
static double hypot_guard(double x, double y) { return x > 0 ? hypot(x, y) : y; }
static double div_guard(double x, double y) { return y != 0 ? x / y : x; }
static double acos_scaled(double x, double y) { return y * acos(x); }
static double asin_scaled(double x, double y) { return y * asin(x); }
static double acosh_scaled(double x, double y) { return y * acosh(x); }
static double cbrt_scaled(double x, double y) { return y * cbrt(x); }
static double sqrt_scaled(double x, double y) { return y * sqrt(x); }
static double atanh_guard(double x, double y) { return fabs(x) < 1 ? atanh(x) : x + y; }
static double lgamma_guard(double x, double y) { return x > 0 ? lgamma(x) : y; }
static double tgamma_guard(double x, double y) { return x > 0 ? tgamma(x) : y; }
static float sqrtf_scaled(float x, float y) { return y * sqrtf(x); }

/* ---- vector mode and LLVM vector types ---- */
static double three(double x, double y, double w) { return w * sqrt(x) + w * acos(y) + w * w; }
static double vec_sqrt(double x, double y, double z) {
  v2d v = {x * x, y};
  v2d s = __builtin_elementwise_sqrt(v);
  return s[0] * z + s[1];
}

int main(void) {
  const double half_pi = asin(in(1.0));

  CHECK2(norm_guard, 0.0, 0.0, 3.0, -1.0, 1.0, 0.0);
  CHECK2(norm_guard, 0.0, 0.0, 3.0, -1.0, 0.0, 1.0);
  CHECK2(norm_guard, 0.6, 0.8, 3.6, -0.2, 1.0, 0.0);
  CHECK2(unit_x, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0);
  CHECK2(unit_x, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0);
  CHECK2(unit_x, 0.6, 0.8, 0.64, -0.48, 1.0, 0.0);
  CHECK2(branch_hyp, 0.0, 0.0, 1.0, 2.0, 1.0, 0.0);
  CHECK2(branch_hyp, 0.0, 0.0, 1.0, 2.0, 0.0, 1.0);
  CHECK2(branch_hyp, 3.0, 4.0, 0.6, 0.8, 1.0, 0.0);

  /* d/dx 0^2.5 = 0, and 0^y = 0 for every y > 0, so d/dy = 0 too. */
  CHECK2(pow_xy, 0.0, 2.5, 0.0, 0.0, 1.0, 0.0);
  CHECK2(pow_xy, 0.0, 2.5, 0.0, 0.0, 0.0, 1.0);
  CHECK2(pow_half, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0);
  CHECK2(powi_neg, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0);
  CHECK2(powi_neg, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0);
  /* x^0 is 1 everywhere, 0 · x^-1 included. */
  CHECK2(powi_zero, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0);
  CHECK2(powi_zero, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0);

  CHECK2(log_guard, 0.0, 2.0, 0.0, 1.0, 1.0, 0.0);
  CHECK2(log_guard, 0.0, 2.0, 0.0, 1.0, 0.0, 1.0);
  CHECK2(log2_guard, 0.0, 2.0, 0.0, 1.0, 1.0, 0.0);
  CHECK2(log10_guard, 0.0, 2.0, 0.0, 1.0, 1.0, 0.0);
  CHECK2(log1p_guard, -1.0, 2.0, 0.0, 1.0, 1.0, 0.0);
  CHECK2(atan2_guard, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0);
  CHECK2(atan2_guard, 0.0, 0.0, 1.0, 1.0, 0.0, 1.0);
  CHECK2(atan2_guard, 1.0, 1.0, -0.5, 0.5, 1.0, 0.0);
  CHECK2(hypot_guard, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0);
  CHECK2(hypot_guard, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0);
  CHECK2(div_guard, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0);
  CHECK2(div_guard, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0);
  CHECK2(div_guard, 1.0, 2.0, 0.5, -0.25, 1.0, 0.0);
  /* y · F(x) at y = 0: the adjoint reaching F is y = 0; forward along y gives F a zero tangent. */
  CHECK2(acos_scaled, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0);
  CHECK2(asin_scaled, 1.0, 0.0, 0.0, half_pi, 0.0, 1.0);
  CHECK2(asin_scaled, -1.0, 0.0, 0.0, -half_pi, 0.0, 1.0);
  CHECK2(acosh_scaled, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0);
  CHECK2(cbrt_scaled, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0);
  CHECK2(sqrt_scaled, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0);
  CHECK2(atanh_guard, 1.0, 0.5, 1.0, 1.0, 1.0, 0.0);
  CHECK2(atanh_guard, -1.0, 0.5, 1.0, 1.0, 0.0, 1.0);
  CHECK2(lgamma_guard, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0);
  CHECK2(tgamma_guard, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0);

  {
    float x = (float)in(0.0), y = (float)in(0.0);
    G2f g = __enzyme_autodiff_g2f((void *)sqrtf_scaled, x, y);
    check_value(g.dx, 0.0, "rev d/dx sqrtf_scaled", x, y);
    check_value(g.dy, 0.0, "rev d/dy sqrtf_scaled", x, y);
    float t = __enzyme_fwddiff_f((void *)sqrtf_scaled, x, (float)in(0.0), y, (float)in(1.0));
    check_value(t, 0.0, "fwd sqrtf_scaled", x, y);
  }

  /* Width 2: one lane seeded, the other zero. The partials are shared, the zero test is per lane. */
  {
    double x = in(0.0), y = in(1.0), w = in(3.0);
    T2 r = __enzyme_fwddiff_w2((void *)three, enzyme_width, 2, x, in(0.0), in(0.0), y, in(0.0),
                               in(0.0), w, in(1.0), in(0.0));
    check_value(r.d[0], 6.0, "width 2 three lane 0", x, y);
    check_value(r.d[1], 0.0, "width 2 three lane 1", x, y);
    G3 g = __enzyme_autodiff_g3((void *)three, in(0.0), in(1.0), in(0.0));
    check_value(g.dx, 0.0, "rev d/dx three (w = 0)", 0, 1);
    check_value(g.dy, 0.0, "rev d/dy three (w = 0)", 0, 1);
    check_value(g.dz, 0.0, "rev d/dw three (w = 0)", 0, 1);

    double a = in(0.0), b = in(0.0);
    T2 n = __enzyme_fwddiff_w2((void *)norm_guard, enzyme_width, 2, a, in(1.0), in(0.0), b, in(0.0),
                               in(0.0));
    check_value(n.d[0], 3.0, "width 2 norm_guard lane 0", a, b);
    check_value(n.d[1], 0.0, "width 2 norm_guard lane 1", a, b);
    n = __enzyme_fwddiff_w2((void *)norm_guard, enzyme_width, 2, a, in(0.0), in(0.0), b, in(0.0),
                            in(1.0));
    check_value(n.d[0], 0.0, "width 2 norm_guard lane 0", a, b);
    check_value(n.d[1], -1.0, "width 2 norm_guard lane 1", a, b);
  }

  /* <2 x double>: lane 0 of the sqrt sits at 0 with a zero tangent (d(x²) = 2x dx = 0) and a zero
     adjoint (z = 0); lane 1 is an ordinary sqrt. */
  {
    double x = in(0.0), y = in(4.0), z = in(0.0);
    G3 g = __enzyme_autodiff_g3((void *)vec_sqrt, x, y, z);
    check_value(g.dx, 0.0, "rev d/dx vec_sqrt", x, y);
    check_value(g.dy, 0.25, "rev d/dy vec_sqrt", x, y);
    check_value(g.dz, 0.0, "rev d/dz vec_sqrt", x, y);
    double t = __enzyme_fwddiff((void *)vec_sqrt, x, in(1.0), y, in(1.0), z, in(1.0));
    check_value(t, 0.25, "fwd vec_sqrt along (1, 1, 1)", x, y);
  }
  return check_report();
}
