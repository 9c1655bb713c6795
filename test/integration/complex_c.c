// C99 _Complex arithmetic and <complex.h> functions without -ffast-math: __muldc3/__divdc3 and
// __mulsc3/__divsc3 (clang's complex multiply and divide), cexp, clog, csqrt, csin, ccos, ctan,
// csinh, ccosh, ctanh, cpow, conj, creal, cimag, cabs, carg and their float forms, in both modes,
// against central finite differences (double) and against the double derivative (float).
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
#include "check.h"
#include <complex.h>

typedef struct { double a, b; } P2;
typedef struct { float a, b; } F2;
P2 __enzyme_autodiff2(void *, ...) __asm__("__enzyme_autodiff");
F2 __enzyme_autodiff_f2(void *, ...) __asm__("__enzyme_autodiff");

static double f(double x, double y) {
  double complex z = x + I * y;
  double complex w = cexp(z) * z / (1.0 + z * z) + csqrt(z) + clog(z) * csin(z) + ccos(z) + ctan(z * 0.3) +
                     csinh(z) * ccosh(z) + ctanh(z) + cpow(z, 0.5 + 0.25 * z) + conj(z) * z;
  return creal(w) * 0.7 + cimag(w) * 1.3 + cabs(w) + carg(z) * 2.0;
}
static float ff(float x, float y) {
  float complex z = x + I * y;
  float complex w = cexpf(z) * z / (1.0f + z * z) + csqrtf(z) + clogf(z) * csinf(z) + ctanhf(z) +
                    cpowf(z, 0.5f + 0.25f * z) + conjf(z) * z;
  return crealf(w) * 0.7f + cimagf(w) * 1.3f + cabsf(w) + cargf(z) * 2.0f;
}
/* ff in double: the reference for the float derivatives */
static double fd(double x, double y) {
  double complex z = x + I * y;
  double complex w = cexp(z) * z / (1.0 + z * z) + csqrt(z) + clog(z) * csin(z) + ctanh(z) +
                     cpow(z, 0.5 + 0.25 * z) + conj(z) * z;
  return creal(w) * 0.7 + cimag(w) * 1.3 + cabs(w) + carg(z) * 2.0;
}
static double fx(double x, void *c) { return f(x, *(double *)c); }
static double fy(double y, void *c) { return f(*(double *)c, y); }

int main(void) {
  const double pts[3][2] = {{0.8, 0.6}, {-1.1, 0.4}, {0.3, -0.9}};
  for (int k = 0; k < 3; ++k) {
    double x = pts[k][0], y = pts[k][1];
    P2 g = __enzyme_autodiff2((void *)f, x, y);
    double tx = __enzyme_fwddiff((void *)f, x, 1.0, y, 0.0);
    double ty = __enzyme_fwddiff((void *)f, x, 0.0, y, 1.0);
    double wx = check_fd(fx, &y, x), wy = check_fd(fy, &x, y);
    CHECK_CLOSE(g.a, wx, 1e-6, "reverse d/dx at (%g, %g)", x, y);
    CHECK_CLOSE(g.b, wy, 1e-6, "reverse d/dy at (%g, %g)", x, y);
    CHECK_CLOSE(tx, g.a, 1e-12, "forward d/dx at (%g, %g)", x, y);
    CHECK_CLOSE(ty, g.b, 1e-12, "forward d/dy at (%g, %g)", x, y);
    P2 gd = __enzyme_autodiff2((void *)fd, x, y);
    float xf = (float)x, yf = (float)y;
    double tfx = __enzyme_fwddiff((void *)ff, xf, 1.0f, yf, 0.0f);
    double tfy = __enzyme_fwddiff((void *)ff, xf, 0.0f, yf, 1.0f);
    F2 gf = __enzyme_autodiff_f2((void *)ff, xf, yf);
    CHECK_CLOSE(tfx, gd.a, 1e-4, "float forward d/dx at (%g, %g)", x, y);
    CHECK_CLOSE(tfy, gd.b, 1e-4, "float forward d/dy at (%g, %g)", x, y);
    CHECK_CLOSE(gf.a, gd.a, 1e-4, "float reverse d/dx at (%g, %g)", x, y);
    CHECK_CLOSE(gf.b, gd.b, 1e-4, "float reverse d/dy at (%g, %g)", x, y);
  }
  return check_report();
}
