/* One table of C math library cases shared by libm_double.c, libm_float.c and
 * libm_long_double.c. The including file defines REAL (the type), M(fn) (the function name for
 * that type: sin / sinf / sinl) and expands the lists with its own X macros.
 *
 * LIBM_UNARY(X):  X(name, primal expression in x, derivative in long double xl, lo, hi, tolclass)
 * LIBM_BINARY(X): X(name, primal in x and y, d/dx and d/dy in xl and yl, xlo, xhi, ylo, yhi)
 * tolclass 0: closed-form derivative; 1: derivative through the digamma series below.
 * Domains stay away from kinks, integers (for the piecewise-constant functions) and poles.
 */
#ifndef SYNTHASE_TEST_LIBM_CASES_H
#define SYNTHASE_TEST_LIBM_CASES_H
#include <math.h>

/* digamma(x) for x > 0, in long double: recurrence up to x >= 12, then the asymptotic series. */
static inline long double check_digamma(long double x) {
  long double acc = 0;
  while (x < 12.0L) {
    acc -= 1.0L / x;
    x += 1.0L;
  }
  long double r = 1.0L / (x * x);
  long double s = logl(x) - 0.5L / x -
                  r * (1.0L / 12 - r * (1.0L / 120 - r * (1.0L / 252 - r * (1.0L / 240 - r * (1.0L / 132 - r * (691.0L / 32760 - r / 12))))));
  return acc + s;
}
static int libm_quo; /* remquo's quotient bits */
static inline long double check_sgn(long double v) { return v > 0 ? 1.0L : (v < 0 ? -1.0L : 0.0L); }

#define LIBM_PI_L 3.141592653589793238462643383279502884L

#define LIBM_UNARY(X)                                                                              \
  X(sin, M(sin)(x), cosl(xl), -3, 3, 0)                                                            \
  X(cos, M(cos)(x), -sinl(xl), -3, 3, 0)                                                           \
  X(tan, M(tan)(x), 1.0L / (cosl(xl) * cosl(xl)), -1.2, 1.2, 0)                                    \
  X(asin, M(asin)(x), 1.0L / sqrtl(1.0L - xl * xl), -0.9, 0.9, 0)                                  \
  X(acos, M(acos)(x), -1.0L / sqrtl(1.0L - xl * xl), -0.9, 0.9, 0)                                 \
  X(atan, M(atan)(x), 1.0L / (1.0L + xl * xl), -3, 3, 0)                                           \
  X(sinh, M(sinh)(x), coshl(xl), -2, 2, 0)                                                         \
  X(cosh, M(cosh)(x), sinhl(xl), -2, 2, 0)                                                         \
  X(tanh, M(tanh)(x), 1.0L / (coshl(xl) * coshl(xl)), -2, 2, 0)                                    \
  X(asinh, M(asinh)(x), 1.0L / sqrtl(xl * xl + 1.0L), -3, 3, 0)                                    \
  X(acosh, M(acosh)(x), 1.0L / sqrtl(xl * xl - 1.0L), 1.1, 4, 0)                                   \
  X(atanh, M(atanh)(x), 1.0L / (1.0L - xl * xl), -0.9, 0.9, 0)                                     \
  X(exp, M(exp)(x), expl(xl), -2, 2, 0)                                                            \
  X(expm1, M(expm1)(x), expl(xl), -2, 2, 0)                                                        \
  X(exp2, M(exp2)(x), exp2l(xl) * 0.693147180559945309417232121458176568L, -2, 2, 0)              \
  X(log, M(log)(x), 1.0L / xl, 0.1, 5, 0)                                                          \
  X(log1p, M(log1p)(x), 1.0L / (1.0L + xl), -0.9, 4, 0)                                            \
  X(log2, M(log2)(x), 1.0L / (xl * 0.693147180559945309417232121458176568L), 0.1, 5, 0)           \
  X(log10, M(log10)(x), 1.0L / (xl * 2.302585092994045684017991454684364208L), 0.1, 5, 0)         \
  X(sqrt, M(sqrt)(x), 0.5L / sqrtl(xl), 0.1, 5, 0)                                                 \
  X(cbrt, M(cbrt)(x), 1.0L / (3.0L * cbrtl(xl) * cbrtl(xl)), 0.1, 5, 0)                            \
  X(cbrtneg, M(cbrt)(x), 1.0L / (3.0L * cbrtl(xl) * cbrtl(xl)), -5, -0.1, 0)                       \
  X(erf, M(erf)(x), 2.0L / sqrtl(LIBM_PI_L) * expl(-xl * xl), -2, 2, 0)                            \
  X(erfc, M(erfc)(x), -2.0L / sqrtl(LIBM_PI_L) * expl(-xl * xl), -2, 2, 0)                         \
  X(tgamma, M(tgamma)(x), tgammal(xl) * check_digamma(xl), 0.5, 4, 1)                              \
  X(lgamma, M(lgamma)(x), check_digamma(xl), 0.5, 4, 1)                                            \
  X(fabs, M(fabs)(x), check_sgn(xl), -3, 3, 0)                                                     \
  X(floor, M(floor)(x) + x, 1.0L, 0.1, 0.9, 0)                                                     \
  X(ceil, M(ceil)(x) * x, ceill(xl), 1.1, 1.9, 0)                                                  \
  X(trunc, M(trunc)(x) * x, truncl(xl), -2.9, -2.1, 0)                                             \
  X(round, M(round)(x) - 2 * x, -2.0L, 3.1, 3.4, 0)                                                \
  X(rint, M(rint)(x) * x, rintl(xl), 4.6, 4.9, 0)                                                  \
  X(logb, M(logb)(x) * x, logbl(xl), 9.5, 15, 0)                                                   \
  X(ldexp, M(ldexp)(x, 3), 8.0L, -3, 3, 0)                                                         \
  X(ldexpneg, M(ldexp)(x, -2) * x, 0.5L * xl, -3, 3, 0)                                            \
  X(frexp, libm_frexp_mant(x), libm_frexp_dmant(xl), -20, 20, 0)                                   \
  X(sincos, M(sin)(x) * M(cos)(x), cosl(2.0L * xl), -3, 3, 0)                                      \
  X(modf, libm_modf_mix(x), 2.0L + truncl(xl), -5.9, -5.1, 0)                                                \
  X(j0, M(j0)(x), -j1l(xl), 0.2, 6, 0)                                                             \
  X(j1, M(j1)(x), 0.5L * (j0l(xl) - jnl(2, xl)), -4, 4, 0)                                         \
  X(jn, M(jn)(3, x), 0.5L * (jnl(2, xl) - jnl(4, xl)), 0.3, 6, 0)                                  \
  X(y0, M(y0)(x), -y1l(xl), 0.3, 6, 0)                                                             \
  X(y1, M(y1)(x), 0.5L * (y0l(xl) - ynl(2, xl)), 0.5, 6, 0)                                        \
  X(yn, M(yn)(2, x), 0.5L * (y1l(xl) - ynl(3, xl)), 0.8, 6, 0)                                     \
  X(lgamma_r, libm_lgamma_r(x), check_digamma(xl), 0.5, 4, 1)                                      \
  X(gamma, M(gamma)(x), check_digamma(xl), 0.5, 4, 1)                                              \
  X(significand, M(significand)(x), significandl(xl) / xl, 0.1, 9, 0)                              \
  X(scalbln, M(scalbln)(x, 3L), 8.0L, -3, 3, 0)                                                    \
  X(powconst2, M(pow)(x, 2), 2.0L * xl, -3, 3, 0)                                                  \
  X(powconsthalf, M(pow)(x, 0.5), 0.5L / sqrtl(xl), 0.2, 4, 0)                                     \
  X(powconst3, M(pow)(x, 3), 3.0L * xl * xl, -3, 3, 0)                                             \
  X(powbase, M(pow)(2.5, x), powl(2.5L, xl) * logl(2.5L), -2, 2, 0)                                \
  X(expofsin, M(exp)(M(sin)(x)) * M(log)(x * x + 1), expl(sinl(xl)) * (cosl(xl) * logl(xl * xl + 1) + 2 * xl / (xl * xl + 1)), -2, 2, 0)

#define LIBM_BINARY(X)                                                                             \
  X(pow, M(pow)(x, y), yl * powl(xl, yl - 1), powl(xl, yl) * logl(xl), 0.2, 3, -2, 2)              \
  X(hypot, M(hypot)(x, y), xl / hypotl(xl, yl), yl / hypotl(xl, yl), -3, 3, 0.5, 3)                \
  X(atan2, M(atan2)(x, y), yl / (xl * xl + yl * yl), -xl / (xl * xl + yl * yl), -3, 3, -3, 3)      \
  X(fmod, M(fmod)(x, y), 1.0L, -truncl(xl / yl), 0.5, 5, 0.7, 1.9)                                 \
  X(remainder, M(remainder)(x, y), 1.0L, -rintl(xl / yl), 0.5, 5, 0.7, 1.9)                        \
  X(drem, M(drem)(x, y), 1.0L, -rintl(xl / yl), 0.5, 5, 0.7, 1.9)                                  \
  X(remquo, M(remquo)(x, y, &libm_quo), 1.0L, -rintl(xl / yl), 0.5, 5, 0.7, 1.9)                  \
  X(fdim, M(fdim)(x, y), xl > yl ? 1.0L : 0.0L, xl > yl ? -1.0L : 0.0L, -2, 2, -2, 2)              \
  X(fmin, M(fmin)(x, y), xl < yl ? 1.0L : 0.0L, xl < yl ? 0.0L : 1.0L, -2, 2, -2, 2)               \
  X(fmax, M(fmax)(x, y), xl > yl ? 1.0L : 0.0L, xl > yl ? 0.0L : 1.0L, -2, 2, -2, 2)               \
  X(copysign, M(copysign)(x, y), check_sgn(xl) * check_sgn(yl), 0.0L, -2, 2, -2, 2)                \
  X(powprod, M(pow)(x * y, 1.5) + M(sqrt)(x * x + y * y), 1.5L * powl(xl * yl, 0.5L) * yl + xl / sqrtl(xl * xl + yl * yl), 1.5L * powl(xl * yl, 0.5L) * xl + yl / sqrtl(xl * xl + yl * yl), 0.3, 2, 0.3, 2)

#endif

#ifndef SYNTHASE_TEST_LIBM_FREXP
#define SYNTHASE_TEST_LIBM_FREXP
static inline long double libm_frexp_dmant(long double x) {
  int e;
  frexpl(x, &e);
  return ldexpl(1.0L, -e);
}
#endif
