/* Generates one test per case of libm_cases.h for the type REAL. The including file defines:
 *   REAL, M(fn), TOL0, TOL1 (relative tolerances for tolclass 0 / 1), HAVE_FD_REF (0/1),
 *   AD1(f, x)              reverse, one active argument, returns the adjoint
 *   FWD1(f, x, dx)         forward, returns the tangent
 *   AD2(f, x, y)           reverse, two actives, returns struct { REAL dx, dy; }
 *   ADCY(f, x, y)          reverse, y passed enzyme_const, returns d/dx
 *   FWD2(f, x, dx, y, dy)  forward, two tangents
 */
#include "check.h"
#include "libm_cases.h"

static REAL libm_frexp_mant(REAL x) {
  int e;
  return M(frexp)(x, &e);
}

/* The reentrant spellings put the precision before _r (lgammaf_r). */
#ifndef M_R
#define M_R(fn) fn##_r
#endif
static REAL libm_lgamma_r(REAL x) {
  int sign;
  return M_R(lgamma)(x, &sign);
}

/* modf splits a table coordinate into cell and fraction: both parts used (the fraction's
   derivative is 1, the cell's 0), through clang's llvm.modf. */
static REAL libm_modf_mix(REAL x) {
  REAL cell;
  REAL frac = M(modf)(x, &cell);
  return 2 * frac + cell * frac;
}

#define GEN1(name, expr, dexpr, lo, hi, tc)                                                        \
  static REAL f1_##name(REAL x) { return expr; }                                                   \
  static long double d1_##name(long double xl) {                                                   \
    (void)xl;                                                                                      \
    return dexpr;                                                                                  \
  }                                                                                                \
  static double fd1_##name(double x, void *c) {                                                    \
    (void)c;                                                                                       \
    return (double)f1_##name((REAL)x);                                                             \
  }                                                                                                \
  static void t1_##name(void) {                                                                    \
    for (int i = 0; i < 5; ++i) {                                                                  \
      REAL x = (REAL)check_uniform(lo, hi);                                                        \
      long double want = d1_##name((long double)x);                                                \
      double tol = (tc) ? TOL1 : TOL0;                                                             \
      CHECK_CLOSE(AD1((void *)f1_##name, x), want, tol, "rev %s x=%.17g", #name, (double)x);       \
      CHECK_CLOSE(FWD1((void *)f1_##name, x, (REAL)1), want, tol, "fwd %s x=%.17g", #name,         \
                  (double)x);                                                                      \
      CHECK_CLOSE(FWD1((void *)f1_##name, x, (REAL)-2.5), -2.5L * want, tol,                       \
                  "fwd %s (tangent -2.5) x=%.17g", #name, (double)x);                              \
      if (HAVE_FD_REF)                                                                             \
        CHECK_CLOSE(check_fd(fd1_##name, 0, (double)x), want, 1e-6, "ref %s x=%.17g", #name,       \
                    (double)x);                                                                    \
    }                                                                                              \
  }

#define GEN2(name, expr, dxexpr, dyexpr, xlo, xhi, ylo, yhi)                                       \
  static REAL f2_##name(REAL x, REAL y) { return expr; }                                           \
  static long double dx2_##name(long double xl, long double yl) {                                  \
    (void)xl;                                                                                      \
    (void)yl;                                                                                      \
    return dxexpr;                                                                                 \
  }                                                                                                \
  static long double dy2_##name(long double xl, long double yl) {                                  \
    (void)xl;                                                                                      \
    (void)yl;                                                                                      \
    return dyexpr;                                                                                 \
  }                                                                                                \
  static double fdx2_##name(double x, void *c) {                                                   \
    return (double)f2_##name((REAL)x, *(REAL *)c);                                                 \
  }                                                                                                \
  static double fdy2_##name(double y, void *c) {                                                   \
    return (double)f2_##name(*(REAL *)c, (REAL)y);                                                 \
  }                                                                                                \
  static void t2_##name(void) {                                                                    \
    for (int i = 0; i < 5; ++i) {                                                                  \
      REAL x = (REAL)check_uniform(xlo, xhi), y = (REAL)check_uniform(ylo, yhi);                   \
      long double wx = dx2_##name(x, y), wy = dy2_##name(x, y);                                    \
      REAL vx = (REAL)check_uniform(-1, 1), vy = (REAL)check_uniform(-1, 1);                       \
      AD2T g = AD2((void *)f2_##name, x, y);                                                       \
      CHECK_CLOSE(g.dx, wx, TOL0, "rev %s d/dx x=%.17g y=%.17g", #name, (double)x, (double)y);     \
      CHECK_CLOSE(g.dy, wy, TOL0, "rev %s d/dy x=%.17g y=%.17g", #name, (double)x, (double)y);     \
      CHECK_CLOSE(ADCY((void *)f2_##name, x, y), wx, TOL0, "rev %s d/dx, y const", #name);         \
      CHECK_CLOSE(FWD2((void *)f2_##name, x, vx, y, vy), wx * vx + wy * vy, TOL0,                  \
                  "fwd %s x=%.17g y=%.17g", #name, (double)x, (double)y);                          \
      if (HAVE_FD_REF) {                                                                           \
        CHECK_CLOSE(check_fd(fdx2_##name, &y, (double)x), wx, 1e-6, "ref %s d/dx", #name);         \
        CHECK_CLOSE(check_fd(fdy2_##name, &x, (double)y), wy, 1e-6, "ref %s d/dy", #name);         \
      }                                                                                            \
    }                                                                                              \
  }

LIBM_UNARY(GEN1)
LIBM_BINARY(GEN2)

#define CALL1(name, ...) t1_##name();
#define CALL2(name, ...) t2_##name();

int main(void) {
  check_seed(7);
  LIBM_UNARY(CALL1)
  LIBM_BINARY(CALL2)
#ifdef LIBM_EXTRA_TESTS
  LIBM_EXTRA_TESTS();
#endif
  return check_report();
}
