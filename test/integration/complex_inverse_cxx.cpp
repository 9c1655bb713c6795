// std::complex: the inverse functions std::asin, acos, atan, asinh, acosh, atanh and std::proj,
// std::conj in double, float and long double (libstdc++ calls casin, ... through __builtin_casin
// and friends); std::complex<long double> arithmetic (__mulxc3, __divxc3) and functions, whose
// operands x86-64 passes in memory; std::pow(std::complex, double), std::polar, std::abs and
// std::arg in all three types. Both modes; double against central finite differences, long double
// against long double finite differences, float against the double derivative. The points stay
// off every branch cut.
// RUN: %synthase-cxx -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cxx -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
#include "check.h"
#include <complex>

struct P2 { double a, b; };
struct F2 { float a, b; };
struct L2 { long double a, b; };
extern "C" P2 __enzyme_autodiff2(void *, ...) __asm__("__enzyme_autodiff");
extern "C" F2 __enzyme_autodiff_f2(void *, ...) __asm__("__enzyme_autodiff");
extern "C" L2 __enzyme_autodiff_l2(void *, ...) __asm__("__enzyme_autodiff");
extern "C" long double __enzyme_fwddiffl(void *, ...) __asm__("__enzyme_fwddiff");

/* The same expression in each type: T is the real type. */
template <class T> static T inverse(T x, T y) {
  typedef std::complex<T> C;
  C z(x, y);
  C w = std::asin(z) + T(0.5) * std::acos(z) + std::atan(z) * z + std::asinh(z) +
        T(0.3) * std::acosh(z) * std::atanh(z) + std::proj(z) * z + std::conj(z) * T(0.25);
  return w.real() * T(0.7) + w.imag() * T(1.3);
}
template <class T> static T others(T x, T y) {
  typedef std::complex<T> C;
  C z(x, y);
  C w = z * z / (T(1) + z) + std::pow(z, T(1.7)) + std::polar(std::abs(z), T(0.5) * y) * std::exp(z) +
        std::sqrt(z) * std::log(z) + std::sin(z) / std::cosh(z);
  return w.real() * T(0.7) + w.imag() * T(1.3) + std::abs(w) + std::arg(z) * T(2);
}
static double fd(double x, double y) { return inverse(x, y); }
static float ff(float x, float y) { return inverse(x, y); }
static long double fl(long double x, long double y) { return inverse(x, y); }
static double gd(double x, double y) { return others(x, y); }
static float gf(float x, float y) { return others(x, y); }
static long double gl(long double x, long double y) { return others(x, y); }

static double (*DFn)(double, double);
static double dx(double x, void *c) { return DFn(x, *(double *)c); }
static double dy(double y, void *c) { return DFn(*(double *)c, y); }
static long double (*LFn)(long double, long double);
static long double lx(long double x, void *c) { return LFn(x, *(long double *)c); }
static long double ly(long double y, void *c) { return LFn(*(long double *)c, y); }

/* double: central differences (h = 1e-5), 1e-6; forward and reverse sum the same terms: 1e-12.
   float: against the double derivative, 1e-4. long double: long double differences (h = 1e-6),
   1e-9; forward/reverse 1e-15. */
#define CHECK_TYPES(FD, FF, FL, x, y)                                                              \
  do {                                                                                             \
    double X = (x), Y = (y);                                                                       \
    DFn = FD;                                                                                      \
    P2 g = __enzyme_autodiff2((void *)FD, X, Y);                                         \
    CHECK_CLOSE(g.a, check_fd(dx, &Y, X), 1e-6, #FD " reverse d/dx at (%g, %g)", X, Y);            \
    CHECK_CLOSE(g.b, check_fd(dy, &X, Y), 1e-6, #FD " reverse d/dy at (%g, %g)", X, Y);            \
    CHECK_CLOSE(__enzyme_fwddiff((void *)FD, X, 1.0, Y, 0.0), g.a, 1e-12, #FD " forward d/dx at (%g, %g)", X, Y); \
    CHECK_CLOSE(__enzyme_fwddiff((void *)FD, X, 0.0, Y, 1.0), g.b, 1e-12, #FD " forward d/dy at (%g, %g)", X, Y); \
    float XF = (float)X, YF = (float)Y;                                                            \
    F2 rf = __enzyme_autodiff_f2((void *)FF, XF, YF);                                     \
    CHECK_CLOSE(rf.a, g.a, 1e-4, #FF " reverse d/dx at (%g, %g)", X, Y);                           \
    CHECK_CLOSE(rf.b, g.b, 1e-4, #FF " reverse d/dy at (%g, %g)", X, Y);                           \
    CHECK_CLOSE(__enzyme_fwddiff((void *)FF, XF, 1.0f, YF, 0.0f), g.a, 1e-4, #FF " forward d/dx at (%g, %g)", X, Y); \
    CHECK_CLOSE(__enzyme_fwddiff((void *)FF, XF, 0.0f, YF, 1.0f), g.b, 1e-4, #FF " forward d/dy at (%g, %g)", X, Y); \
    long double XL = X, YL = Y;                                                                    \
    LFn = FL;                                                                                      \
    L2 rl = __enzyme_autodiff_l2((void *)FL, XL, YL);                               \
    CHECK_CLOSE(rl.a, check_fd_l(lx, &YL, XL), 1e-9, #FL " reverse d/dx at (%g, %g)", X, Y);       \
    CHECK_CLOSE(rl.b, check_fd_l(ly, &XL, YL), 1e-9, #FL " reverse d/dy at (%g, %g)", X, Y);       \
    CHECK_CLOSE(__enzyme_fwddiffl((void *)FL, XL, 1.0L, YL, 0.0L), rl.a, 1e-15, #FL " forward d/dx at (%g, %g)", X, Y); \
    CHECK_CLOSE(__enzyme_fwddiffl((void *)FL, XL, 0.0L, YL, 1.0L), rl.b, 1e-15, #FL " forward d/dy at (%g, %g)", X, Y); \
  } while (0)

int main() {
  const double pts[4][2] = {{0.3, 0.4}, {-0.6, 0.5}, {0.7, -0.2}, {-1.4, -1.7}};
  for (auto &p : pts) {
    CHECK_TYPES(fd, ff, fl, p[0], p[1]);
    CHECK_TYPES(gd, gf, gl, p[0], p[1]);
  }
  return check_report();
}
