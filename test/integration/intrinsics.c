// LLVM intrinsics reached through clang builtins (__builtin_elementwise_* emit llvm.sin, llvm.pow,
// llvm.minnum, llvm.maximum, llvm.copysign, llvm.floor, ...), llvm.fma, llvm.fmuladd (from
// contraction of a*b+c), llvm.powi, frem, llvm.canonicalize and llvm.arithmetic.fence
// (the identity's derivative): reverse and forward mode against closed forms.
// The -ffast-math run checks that fast-math flags do not change the derivatives.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O2 -ffast-math -I%inputs %s -o %t5 -lm && %t5
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
#include "check.h"
#include "libm_cases.h"

#pragma STDC FP_CONTRACT ON

typedef struct { double dx, dy; } G2;
typedef struct { double da, db, dc; } G3;
G2 __enzyme_autodiff_g2(void *, ...);
G3 __enzyme_autodiff_g3(void *, ...);

#define EW(fn) __builtin_elementwise_##fn
#define INTR1(X)                                                                                   \
  X(sqrt, EW(sqrt)(x), 0.5L / sqrtl(xl), 0.1, 5)                                                   \
  X(sin, EW(sin)(x), cosl(xl), -3, 3)                                                              \
  X(cos, EW(cos)(x), -sinl(xl), -3, 3)                                                             \
  X(tan, EW(tan)(x), 1.0L / (cosl(xl) * cosl(xl)), -1.2, 1.2)                                      \
  X(asin, EW(asin)(x), 1.0L / sqrtl(1 - xl * xl), -0.9, 0.9)                                       \
  X(acos, EW(acos)(x), -1.0L / sqrtl(1 - xl * xl), -0.9, 0.9)                                      \
  X(atan, EW(atan)(x), 1.0L / (1 + xl * xl), -3, 3)                                                \
  X(sinh, EW(sinh)(x), coshl(xl), -2, 2)                                                           \
  X(cosh, EW(cosh)(x), sinhl(xl), -2, 2)                                                           \
  X(tanh, EW(tanh)(x), 1.0L / (coshl(xl) * coshl(xl)), -2, 2)                                      \
  X(exp, EW(exp)(x), expl(xl), -2, 2)                                                              \
  X(exp2, EW(exp2)(x), exp2l(xl) * 0.693147180559945309417232121458176568L, -2, 2)                 \
  X(exp10, EW(exp10)(x), powl(10.0L, xl) * 2.302585092994045684017991454684364208L, -1, 1)         \
  X(log, EW(log)(x), 1.0L / xl, 0.1, 5)                                                            \
  X(log2, EW(log2)(x), 1.0L / (xl * 0.693147180559945309417232121458176568L), 0.1, 5)              \
  X(log10, EW(log10)(x), 1.0L / (xl * 2.302585092994045684017991454684364208L), 0.1, 5)            \
  X(fabs, __builtin_fabs(x) * 3.0, 3.0L * check_sgn(xl), -3, 3)                                     \
  X(floor, EW(floor)(x) * x, floorl(xl), 1.1, 1.9)                                                 \
  X(ceil, EW(ceil)(x) * x, ceill(xl), 1.1, 1.9)                                                    \
  X(trunc, EW(trunc)(x) * x, truncl(xl), -2.9, -2.1)                                               \
  X(round, EW(round)(x) * x, roundl(xl), 2.6, 2.9)                                                 \
  X(rint, EW(rint)(x) + x, 1.0L, 2.6, 2.9)                                                         \
  X(powi3, __builtin_powi(x, 3), 3.0L * xl * xl, -2, 2)                                             \
  X(powim2, __builtin_powi(x, -2), -2.0L / (xl * xl * xl), 0.3, 2)                                  \
  X(fmuladd_sq, x * x + x, 2.0L * xl + 1, -2, 2)                                                  \
  X(canonicalize, __builtin_canonicalize(x * x) * x, 3.0L * xl * xl, -2, 2)                        \
  X(arith_fence, __arithmetic_fence(x * x) + x, 2.0L * xl + 1, -2, 2)

#define INTR2(X)                                                                                   \
  X(pow, EW(pow)(x, y), yl * powl(xl, yl - 1), powl(xl, yl) * logl(xl), 0.2, 3, -2, 2)             \
  X(atan2, EW(atan2)(x, y), yl / (xl * xl + yl * yl), -xl / (xl * xl + yl * yl), -3, 3, -3, 3)     \
  X(maxnum, __builtin_fmax(x, y), xl > yl, xl <= yl, -2, 2, -2, 2)                                 \
  X(minnum, __builtin_fmin(x, y), xl < yl, xl >= yl, -2, 2, -2, 2)                                 \
  X(maximum, EW(maximum)(x, y), xl > yl, xl <= yl, -2, 2, -2, 2)                                   \
  X(minimum, EW(minimum)(x, y), xl < yl, xl >= yl, -2, 2, -2, 2)                                   \
  X(copysign, EW(copysign)(x, y), check_sgn(xl) * check_sgn(yl), 0.0L, -2, 2, -2, 2)               \
  X(frem, fmod_op(x, y), 1.0L, -truncl(xl / yl), 0.5, 5, 0.7, 1.9)                                 \
  X(fmuladd, x * y + x, yl + 1, xl, -2, 2, -2, 2)                                                  \
  X(fmuladd_chain, x * y + y * y * x - x * x, yl + yl * yl - 2 * xl, xl + 2 * xl * yl, -2, 2, -2, 2)

/* frem: the % operator does not apply to doubles in C; __builtin_elementwise_fmod emits frem. */
static double fmod_op(double x, double y) { return __builtin_elementwise_fmod(x, y); }

#define GEN1(name, expr, dexpr, lo, hi)                                                            \
  static double f1_##name(double x) { return expr; }                                               \
  static long double d1_##name(long double xl) { return dexpr; }                                   \
  static void t1_##name(void) {                                                                    \
    for (int i = 0; i < 5; ++i) {                                                                  \
      double x = check_uniform(lo, hi);                                                            \
      long double w = d1_##name(x);                                                                \
      CHECK_CLOSE(__enzyme_autodiff((void *)f1_##name, x), w, 1e-13, "rev %s x=%.17g", #name, x);  \
      CHECK_CLOSE(__enzyme_fwddiff((void *)f1_##name, x, 1.0), w, 1e-13, "fwd %s x=%.17g", #name, \
                  x);                                                                              \
      CHECK_CLOSE(__enzyme_fwddiff((void *)f1_##name, x, 0.75), 0.75L * w, 1e-13,                  \
                  "fwd %s (0.75) x=%.17g", #name, x);                                              \
    }                                                                                              \
  }
#define GEN2(name, expr, dxe, dye, xlo, xhi, ylo, yhi)                                             \
  static double f2_##name(double x, double y) { return expr; }                                     \
  static void t2_##name(void) {                                                                    \
    for (int i = 0; i < 5; ++i) {                                                                  \
      double x = check_uniform(xlo, xhi), y = check_uniform(ylo, yhi);                             \
      long double xl = x, yl = y;                                                                  \
      long double wx = (dxe), wy = (dye);                                                          \
      double vx = check_uniform(-1, 1), vy = check_uniform(-1, 1);                                 \
      G2 g = __enzyme_autodiff_g2((void *)f2_##name, x, y);                                        \
      CHECK_CLOSE(g.dx, wx, 1e-13, "rev %s d/dx x=%.17g y=%.17g", #name, x, y);                    \
      CHECK_CLOSE(g.dy, wy, 1e-13, "rev %s d/dy x=%.17g y=%.17g", #name, x, y);                    \
      CHECK_CLOSE(__enzyme_fwddiff((void *)f2_##name, x, vx, y, vy), wx * vx + wy * vy, 1e-13,     \
                  "fwd %s x=%.17g y=%.17g", #name, x, y);                                          \
    }                                                                                              \
  }
INTR1(GEN1)
INTR2(GEN2)

/* three-operand fma: d/da = b, d/db = a, d/dc = 1 */
static double f_fma(double a, double b, double c) { return __builtin_fma(a, b, c); }
static double f_fma_nested(double a, double b, double c) {
  return __builtin_fma(a, __builtin_fma(b, c, a), c * c);
}

#define CALL1(name, ...) t1_##name();
#define CALL2(name, ...) t2_##name();
int main(void) {
  check_seed(11);
  INTR1(CALL1)
  INTR2(CALL2)
  for (int i = 0; i < 5; ++i) {
    double a = check_uniform(-2, 2), b = check_uniform(-2, 2), c = check_uniform(-2, 2);
    G3 g = __enzyme_autodiff_g3((void *)f_fma, a, b, c);
    CHECK_CLOSE(g.da, b, 1e-15, "rev fma da");
    CHECK_CLOSE(g.db, a, 1e-15, "rev fma db");
    CHECK_CLOSE(g.dc, 1.0, 1e-15, "rev fma dc");
    CHECK_CLOSE(__enzyme_fwddiff((void *)f_fma, a, 0.5, b, -1.0, c, 2.0), 0.5 * b - a + 2.0, 1e-14,
                "fwd fma");
    /* a*(b*c + a) + c^2 */
    G3 h = __enzyme_autodiff_g3((void *)f_fma_nested, a, b, c);
    CHECK_CLOSE(h.da, b * c + 2 * a, 1e-14, "rev fma nested da");
    CHECK_CLOSE(h.db, a * c, 1e-14, "rev fma nested db");
    CHECK_CLOSE(h.dc, a * b + 2 * c, 1e-14, "rev fma nested dc");
    CHECK_CLOSE(__enzyme_fwddiff((void *)f_fma_nested, a, 1.0, b, 1.0, c, 1.0),
                b * c + 2 * a + a * c + a * b + 2 * c, 1e-14, "fwd fma nested");
  }
  return check_report();
}
