// std::complex<double> and std::complex<float> arithmetic and functions without -ffast-math:
// libstdc++ reaches __muldc3/__divdc3 and cexp, clog, csqrt, ... through __builtin_cexp and
// friends at every level. Both modes, against central finite differences (double) and against
// the double derivative (float).
// RUN: %synthase-cxx -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cxx -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
#include "check.h"
#include <complex>
typedef std::complex<double> cd;
typedef std::complex<float> cf;
struct P2 { double a, b; };
struct F2 { float a, b; };
extern "C" F2 __enzyme_autodiff_f2(void *, ...) __asm__("__enzyme_autodiff");
extern "C" P2 __enzyme_autodiff2(void *, ...) __asm__("__enzyme_autodiff");
static double f(double x, double y) {
  cd z(x, y);
  cd w = std::exp(z) * z / (1.0 + z * z) + std::sqrt(z) + std::log(z) * std::sin(z) + std::cos(z) +
         std::tan(z * 0.3) + std::sinh(z) * std::cosh(z) + std::tanh(z) + std::pow(z, cd(0.5, 0.25) * z) +
         std::conj(z) * z + std::polar(1.5, y) * std::norm(z);
  return w.real() * 0.7 + w.imag() * 1.3 + std::abs(w) + std::arg(z) * 2.0;
}
static float ff(float x, float y) {
  cf z(x, y);
  cf w = std::exp(z) * z / (1.0f + z * z) + std::sqrt(z) + std::log(z) * std::sin(z) + std::pow(z, cf(0.5f, 0.25f));
  return w.real() * 0.7f + w.imag() * 1.3f + std::abs(w) + std::arg(z) * 2.0f;
}
/* ff in double: the reference for the float derivatives */
static double fd(double x, double y) {
  cd z(x, y);
  cd w = std::exp(z) * z / (1.0 + z * z) + std::sqrt(z) + std::log(z) * std::sin(z) + std::pow(z, cd(0.5, 0.25));
  return w.real() * 0.7 + w.imag() * 1.3 + std::abs(w) + std::arg(z) * 2.0;
}
static double fx(double x, void *c) { return f(x, *(double *)c); }
static double fy(double y, void *c) { return f(*(double *)c, y); }
int main() {
  const double pts[3][2] = {{0.8, 0.6}, {-1.1, 0.4}, {0.3, -0.9}};
  for (auto &p : pts) {
    double x = p[0], y = p[1];
    P2 g = __enzyme_autodiff2((void *)f, x, y);
    double tx = __enzyme_fwddiff((void *)f, x, 1.0, y, 0.0);
    double ty = __enzyme_fwddiff((void *)f, x, 0.0, y, 1.0);
    double wx = check_fd(fx, &y, x), wy = check_fd(fy, &x, y);
    CHECK_CLOSE(g.a, wx, 1e-6, "reverse d/dx at (%g, %g)", x, y);
    CHECK_CLOSE(g.b, wy, 1e-6, "reverse d/dy at (%g, %g)", x, y);
    CHECK_CLOSE(tx, g.a, 1e-12, "forward d/dx at (%g, %g)", x, y);
    CHECK_CLOSE(ty, g.b, 1e-12, "forward d/dy at (%g, %g)", x, y);
    P2 gd = __enzyme_autodiff2((void *)fd, x, y);
    float fxv = (float)x, fyv = (float)y;
    double tfx = __enzyme_fwddiff((void *)ff, fxv, 1.0f, fyv, 0.0f);
    double tfy = __enzyme_fwddiff((void *)ff, fxv, 0.0f, fyv, 1.0f);
    CHECK_CLOSE(tfx, gd.a, 1e-4, "float forward d/dx at (%g, %g)", x, y);
    CHECK_CLOSE(tfy, gd.b, 1e-4, "float forward d/dy at (%g, %g)", x, y);
    F2 gf = __enzyme_autodiff_f2((void *)ff, fxv, fyv);
    CHECK_CLOSE(gf.a, gd.a, 1e-4, "float reverse d/dx at (%g, %g)", x, y);
    CHECK_CLOSE(gf.b, gd.b, 1e-4, "float reverse d/dy at (%g, %g)", x, y);
  }
  return check_report();
}
