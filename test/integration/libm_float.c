// Every C math library function in float (sinf, ...), through fully typed entry-point
// prototypes (no default promotion) and one variadic one (float promoted to double by C).
// References are closed-form derivatives in long double.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
#define REAL float
#define M(fn) fn##f
#define M_R(fn) fn##f_r
#define TOL0 2e-6
#define TOL1 5e-6
#define HAVE_FD_REF 0
#include "check.h"
typedef struct { float dx, dy; } AD2T;
#ifdef __cplusplus
extern "C" {
#endif
float __enzyme_autodiff_f1(void *, float);
float __enzyme_fwddiff_f1(void *, float, float);
AD2T __enzyme_autodiff_f2(void *, float, float);
float __enzyme_autodiff_fc(void *, int, float, int, float);
float __enzyme_fwddiff_f2(void *, float, float, float, float);
float __enzyme_autodiff_fvar(void *, ...);
#ifdef __cplusplus
}
#endif
#define AD1(f, x) __enzyme_autodiff_f1(f, x)
#define FWD1(f, x, dx) __enzyme_fwddiff_f1(f, x, dx)
#define AD2(f, x, y) __enzyme_autodiff_f2(f, x, y)
#define ADCY(f, x, y) __enzyme_autodiff_fc(f, enzyme_out, x, enzyme_const, y)
#define FWD2(f, x, dx, y, dy) __enzyme_fwddiff_f2(f, x, dx, y, dy)
#define LIBM_EXTRA_TESTS extra_tests
static void extra_tests(void);
#include "libm_driver.h"
/* The variadic prototype: C promotes the float argument to double; the call must still
   differentiate the float function. */
static float sinsq(float x) { return sinf(x) * sinf(x) + 0.5f * x; }
static void extra_tests(void) {
  for (int i = 0; i < 4; ++i) {
    float x = (float)check_uniform(-2, 2);
    long double want = 2.0L * sinl(x) * cosl(x) + 0.5L;
    CHECK_CLOSE(__enzyme_autodiff_fvar((void *)sinsq, x), want, TOL0, "rev variadic float x=%g", x);
    CHECK_CLOSE(__enzyme_autodiff_fvar((void *)sinsq, enzyme_out, x), want, TOL0,
                "rev variadic float, enzyme_out x=%g", x);
  }
}
