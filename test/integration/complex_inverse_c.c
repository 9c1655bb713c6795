// C99 <complex.h> inverse functions casin, cacos, catan, casinh, cacosh, catanh, and cproj and
// conj, in double, float and long double, plus long double _Complex arithmetic (__mulxc3,
// __divxc3) and the long double forms of the other functions (cexpl, ..., cabsl, cargl), whose
// operands x86-64 passes in memory. Both modes; double against central finite differences, long
// double against long double finite differences, float against the double derivative. The points
// stay off every branch cut (the real axis for |x| > 1 and x < 1, the imaginary axis for |y| > 1).
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
#include "check.h"
#include <complex.h>

typedef struct { double a, b; } P2;
typedef struct { float a, b; } F2;
typedef struct { long double a, b; } L2;
P2 __enzyme_autodiff2(void *, ...) __asm__("__enzyme_autodiff");
F2 __enzyme_autodiff_f2(void *, ...) __asm__("__enzyme_autodiff");
L2 __enzyme_autodiff_l2(void *, ...) __asm__("__enzyme_autodiff");
long double __enzyme_fwddiffl(void *, ...) __asm__("__enzyme_fwddiff");

static double f(double x, double y) {
  double complex z = x + I * y;
  double complex w = casin(z) + 0.5 * cacos(z) + catan(z) * z + casinh(z) + 0.3 * cacosh(z) * catanh(z) +
                     cproj(z) * z + conj(z) * 0.25;
  return creal(w) * 0.7 + cimag(w) * 1.3;
}
static float ff(float x, float y) {
  float complex z = x + I * y;
  float complex w = casinf(z) + 0.5f * cacosf(z) + catanf(z) * z + casinhf(z) + 0.3f * cacoshf(z) * catanhf(z) +
                    cprojf(z) * z + conjf(z) * 0.25f;
  return crealf(w) * 0.7f + cimagf(w) * 1.3f;
}
static long double fl(long double x, long double y) {
  long double complex z = x + I * y;
  long double complex w = casinl(z) + 0.5L * cacosl(z) + catanl(z) * z + casinhl(z) + 0.3L * cacoshl(z) * catanhl(z) +
                          cprojl(z) * z + conjl(z) * 0.25L;
  return creall(w) * 0.7L + cimagl(w) * 1.3L;
}
/* long double arithmetic and the other functions, in memory: __mulxc3, __divxc3, cexpl, ... */
static long double gl(long double x, long double y) {
  long double complex z = x + I * y;
  long double complex w = cexpl(z) * z / (1.0L + z * z) + csqrtl(z) + clogl(z) * csinl(z) + ccosl(z) + ctanl(z) +
                          csinhl(z) * ccoshl(z) + ctanhl(z) + cpowl(z, 0.5L + 0.25L * z);
  return creall(w) * 0.7L + cimagl(w) * 1.3L + cabsl(w) + cargl(z) * 2.0L;
}
/* A loop: the operands' temporary in memory is rewritten in every iteration before the reverse
   sweep runs. */
static long double hl(long double x, long double y) {
  long double complex z = x + I * y;
  for (int k = 0; k < 4; ++k)
    z = 0.5L * z + 0.2L * catanl(z) * casinhl(z) + 0.1L * z * z / (2.0L + z);
  return creall(z) * 0.7L + cimagl(z) * 1.3L;
}
static double fx(double x, void *c) { return f(x, *(double *)c); }
static double fy(double y, void *c) { return f(*(double *)c, y); }
static long double (*LFn)(long double, long double);
static long double lx(long double x, void *c) { return LFn(x, *(long double *)c); }
static long double ly(long double y, void *c) { return LFn(*(long double *)c, y); }

/* f in double is the reference for ff */
static void check_float(double x, double y) {
  P2 gd = __enzyme_autodiff2((void *)f, x, y);
  float xf = (float)x, yf = (float)y;
  F2 gf = __enzyme_autodiff_f2((void *)ff, xf, yf);
  CHECK_CLOSE(gf.a, gd.a, 1e-4, "float reverse d/dx at (%g, %g)", x, y);
  CHECK_CLOSE(gf.b, gd.b, 1e-4, "float reverse d/dy at (%g, %g)", x, y);
  CHECK_CLOSE(__enzyme_fwddiff((void *)ff, xf, 1.0f, yf, 0.0f), gd.a, 1e-4, "float forward d/dx at (%g, %g)", x, y);
  CHECK_CLOSE(__enzyme_fwddiff((void *)ff, xf, 0.0f, yf, 1.0f), gd.b, 1e-4, "float forward d/dy at (%g, %g)", x, y);
}

/* Long double finite differences (h = 1e-6, 64-bit mantissa): error ~1e-12 against 1e-9; forward
   and reverse mode sum the same terms in another order, in long double. */
#define CHECK_LONG(F, x, y)                                                                        \
  do {                                                                                             \
    long double X = (x), Y = (y);                                                                  \
    LFn = F;                                                                                       \
    L2 g = __enzyme_autodiff_l2((void *)F, X, Y);                                                  \
    long double wx = check_fd_l(lx, &Y, X), wy = check_fd_l(ly, &X, Y);                            \
    CHECK_CLOSE(g.a, wx, 1e-9, #F " reverse d/dx at (%Lg, %Lg)", X, Y);                            \
    CHECK_CLOSE(g.b, wy, 1e-9, #F " reverse d/dy at (%Lg, %Lg)", X, Y);                            \
    CHECK_CLOSE(__enzyme_fwddiffl((void *)F, X, 1.0L, Y, 0.0L), g.a, 1e-15, #F " forward d/dx at (%Lg, %Lg)", X, Y); \
    CHECK_CLOSE(__enzyme_fwddiffl((void *)F, X, 0.0L, Y, 1.0L), g.b, 1e-15, #F " forward d/dy at (%Lg, %Lg)", X, Y); \
  } while (0)

int main(void) {
  const double pts[4][2] = {{0.3, 0.4}, {-0.6, 0.5}, {0.7, -0.2}, {-1.4, -1.7}};
  for (int k = 0; k < 4; ++k) {
    double x = pts[k][0], y = pts[k][1];
    P2 g = __enzyme_autodiff2((void *)f, x, y);
    double wx = check_fd(fx, &y, x), wy = check_fd(fy, &x, y);
    CHECK_CLOSE(g.a, wx, 1e-6, "reverse d/dx at (%g, %g)", x, y);
    CHECK_CLOSE(g.b, wy, 1e-6, "reverse d/dy at (%g, %g)", x, y);
    CHECK_CLOSE(__enzyme_fwddiff((void *)f, x, 1.0, y, 0.0), g.a, 1e-12, "forward d/dx at (%g, %g)", x, y);
    CHECK_CLOSE(__enzyme_fwddiff((void *)f, x, 0.0, y, 1.0), g.b, 1e-12, "forward d/dy at (%g, %g)", x, y);
    check_float(x, y);
    CHECK_LONG(fl, x, y);
    CHECK_LONG(gl, x, y);
    CHECK_LONG(hl, x, y);
  }
  return check_report();
}
