// float and long double beyond single libm calls: loops over float arrays with enzyme_dup,
// mixed float/double arithmetic, long double accumulation loops with long double arrays,
// long double reverse with several outs (struct returned in memory), forward tangents in each
// type. References: analytic derivatives computed in long double.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -x c++ -O0 -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
#include "check.h"

#ifdef __cplusplus
extern "C" {
#endif
float __enzyme_fwddiff_f(void *, ...);
long double __enzyme_autodiff_ld(void *, ...);
long double __enzyme_fwddiff_ld(void *, ...);
#ifdef __cplusplus
}
#endif
typedef struct { long double dx, dy; } G2l;
G2l __enzyme_autodiff_ld2(void *, ...);

#define N 8

/* float array loss with a float accumulator */
static float floss(const float *x, int n) {
  float s = 0.0f;
  for (int i = 0; i < n; ++i)
    s += x[i] * x[i] * sinf(x[i]) + 0.5f * x[i];
  return s;
}

/* mixed: float data, double accumulation */
static double mixed(const float *x, double a, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += (double)x[i] * a + (double)(x[i] * x[i]) * a * a;
  return s;
}

/* long double Horner evaluation with long double coefficients (active) */
static long double lpoly(const long double *c, long double x, int n) {
  long double s = 0;
  for (int i = n - 1; i >= 0; --i)
    s = s * x + c[i];
  return s;
}

static long double lfun(long double x, long double y) { return expl(x * y) + sqrtl(x * x + y * y) * y; }

int main(void) {
  check_seed(67);
  for (int t = 0; t < 4; ++t) {
    float x[N], dx[N], v[N];
    for (int i = 0; i < N; ++i) {
      x[i] = (float)check_uniform(-1.5, 1.5);
      dx[i] = 0.0f;
      v[i] = (float)check_uniform(-1, 1);
    }
    __enzyme_autodiff((void *)floss, x, dx, N);
    long double tw = 0;
    for (int i = 0; i < N; ++i) {
      long double xi = x[i];
      long double w = 2 * xi * sinl(xi) + xi * xi * cosl(xi) + 0.5L;
      tw += w * v[i];
      CHECK_CLOSE(dx[i], w, 2e-6, "rev float loss dx[%d]", i);
    }
    CHECK_CLOSE(__enzyme_fwddiff_f((void *)floss, x, v, N), tw, 1e-5, "fwd float loss");

    double a = check_uniform(0.5, 1.5);
    memset(dx, 0, sizeof dx);
    double da = __enzyme_autodiff((void *)mixed, x, dx, a, N);
    double wa = 0, tf = 0;
    for (int i = 0; i < N; ++i) {
      wa += (double)x[i] + 2.0 * (double)(x[i] * x[i]) * a;
      CHECK_CLOSE(dx[i], a + 2.0 * x[i] * a * a, 1e-6, "rev mixed dx[%d]", i);
      tf += (a + 2.0 * x[i] * a * a) * v[i];
    }
    CHECK_CLOSE(da, wa, 1e-6, "rev mixed da");
    CHECK_CLOSE(__enzyme_fwddiff((void *)mixed, x, v, a, 0.0, N), tf, 1e-6, "fwd mixed");

    long double c[N], dc[N], lx = (long double)check_uniform(-1, 1);
    for (int i = 0; i < N; ++i) {
      c[i] = (long double)check_uniform(-1, 1);
      dc[i] = 0;
    }
    long double ldx = __enzyme_autodiff_ld((void *)lpoly, c, dc, lx, N);
    long double dpoly = 0, pw = 1;
    for (int i = 0; i < N; ++i) {
      CHECK_CLOSE(dc[i], pw, 1e-18, "rev long double dc[%d]", i);
      if (i + 1 < N)
        dpoly += (i + 1) * c[i + 1] * pw;
      pw *= lx;
    }
    CHECK_CLOSE(ldx, dpoly, 1e-17, "rev long double dx");
    long double tc[N];
    for (int i = 0; i < N; ++i)
      tc[i] = 0;
    CHECK_CLOSE(__enzyme_fwddiff_ld((void *)lpoly, c, tc, lx, 1.0L, N), dpoly, 1e-17, "fwd long double dx");

    long double X = 0.3L + t * 0.1L, Y = 0.7L - t * 0.05L;
    G2l g = __enzyme_autodiff_ld2((void *)lfun, X, Y);
    long double r = sqrtl(X * X + Y * Y);
    CHECK_CLOSE(g.dx, Y * expl(X * Y) + X * Y / r, 1e-17, "rev long double 2 outs dx");
    CHECK_CLOSE(g.dy, X * expl(X * Y) + Y * Y / r + r, 1e-17, "rev long double 2 outs dy");
    CHECK_CLOSE(__enzyme_fwddiff_ld((void *)lfun, X, 1.0L, Y, 0.0L), Y * expl(X * Y) + X * Y / r, 1e-17,
                "fwd long double dx");
  }
  return check_report();
}
