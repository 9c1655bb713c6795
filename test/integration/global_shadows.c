// Enzyme's global-shadow API: derivatives with respect to globals and tangents seeded in globals.
// Contexts (__enzyme_context + enzyme_context), the context-free __enzyme_shadow(&g, width, lane),
// __enzyme_zero_shadows, a global holding a pointer to another global (its shadow points to the
// pointee's shadow), vector lanes, fwd-over-rev with two contexts, and the enzyme_shadow
// attribute. Reverse adjoints of globals equal forward tangents seeded in the same shadows, and
// both equal the analytic partial derivatives.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t5 -lm && %t5
// RUN: %synthase-cxx -x c++ -O0 -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
#include "check.h"

#ifdef __cplusplus
extern "C" {
#endif
extern int enzyme_context;
void *__enzyme_context(int);
void *__enzyme_shadow(void *, void *, int);
void __enzyme_zero_shadows(void *);
typedef struct { double d0, d1; } Pair;
Pair __enzyme_fwddiff_pair(void *, ...) __asm__("__enzyme_fwddiff");
#ifdef __cplusplus
}
#endif
/* The context-free form has another prototype: reach it through a cast of the same symbol. */
typedef void *(*ShadowFree)(void *, int, int);
#define SHADOW_OF(p, w, l) (((ShadowFree)(void *)__enzyme_shadow)((void *)(p), (w), (l)))

/* ---- model parameters in globals ---- */
double amp = 1.5;
double coef[2] = {0.5, -2.0};
double hidden_scratch; /* nobody queries it: Synthase's own shadow, reset at each call */

__attribute__((noinline)) static double model(double x) {
  hidden_scratch = coef[0] * x;
  return amp * sin(x) + hidden_scratch * x + coef[1] * x * x * x;
}
/* d/damp = sin x, d/dcoef0 = x^2, d/dcoef1 = x^3, d/dx = amp cos x + 2 coef0 x + 3 coef1 x^2 */

static void contexts(void) {
  void *ctx = __enzyme_context(1);
  double *damp = (double *)__enzyme_shadow(ctx, &amp, 0);
  double *dcoef = (double *)__enzyme_shadow(ctx, coef, 0);
  for (int k = 1; k <= 3; ++k) {
    double x = 0.3 * k;
    __enzyme_zero_shadows(ctx);
    double dx = __enzyme_autodiff((void *)model, enzyme_context, ctx, x);
    CHECK_CLOSE(dx, amp * cos(x) + 2 * coef[0] * x + 3 * coef[1] * x * x, 1e-12, "rev dx k=%d", k);
    CHECK_CLOSE(*damp, sin(x), 1e-12, "rev damp k=%d", k);
    CHECK_CLOSE(dcoef[0], x * x, 1e-12, "rev dcoef0 k=%d", k);
    CHECK_CLOSE(dcoef[1], x * x * x, 1e-12, "rev dcoef1 k=%d", k);
    /* The context's shadows are the user's: a second call adds to them. */
    __enzyme_autodiff((void *)model, enzyme_context, ctx, x);
    CHECK_CLOSE(*damp, 2 * sin(x), 1e-12, "rev accumulates k=%d", k);
    /* Forward mode reads the tangents from the same shadows: seeding one global gives its partial. */
    double rev[3] = {*damp / 2, dcoef[0] / 2, dcoef[1] / 2};
    for (int p = 0; p < 3; ++p) {
      __enzyme_zero_shadows(ctx);
      *(p == 0 ? damp : &dcoef[p - 1]) = 1.0;
      double t = __enzyme_fwddiff((void *)model, enzyme_context, ctx, x, 0.0);
      CHECK_CLOSE(t, rev[p], 1e-12, "fwd == rev, parameter %d k=%d", p, k);
    }
  }
  /* Two contexts have distinct shadows. */
  void *other = __enzyme_context(1);
  double *damp2 = (double *)__enzyme_shadow(other, &amp, 0);
  CHECK_TRUE(damp2 != damp, "distinct contexts, distinct shadows");
  *damp2 = 0;
  *damp = 42.0;
  __enzyme_autodiff((void *)model, enzyme_context, other, 0.7);
  CHECK_CLOSE(*damp2, sin(0.7), 1e-12, "second context");
  CHECK_CLOSE(*damp, 42.0, 0, "first context untouched");
}

/* ---- the context-free form, and vector lanes ---- */
double gain = 2.0;
struct { double lo, hi; } band = {1.0, 3.0};
__attribute__((noinline)) static double response(double x) { return gain * x * x + band.hi * exp(band.lo * x); }

static void context_free(void) {
  double *dgain = (double *)SHADOW_OF(&gain, 1, 0);
  double *dhi = (double *)SHADOW_OF(&band.hi, 1, 0);
  double *dlo = (double *)SHADOW_OF(&band.lo, 1, 0);
  double x = 0.8;
  *dgain = *dhi = *dlo = 0;
  double dx = __enzyme_autodiff((void *)response, x);
  CHECK_CLOSE(dx, 2 * gain * x + band.hi * band.lo * exp(band.lo * x), 1e-12, "dx");
  CHECK_CLOSE(*dgain, x * x, 1e-12, "dgain");
  CHECK_CLOSE(*dhi, exp(band.lo * x), 1e-12, "dhi");
  CHECK_CLOSE(*dlo, band.hi * x * exp(band.lo * x), 1e-12, "dlo");
  double rgain = *dgain, rlo = *dlo;
  *dgain = 1.0, *dhi = 0, *dlo = 0;
  CHECK_CLOSE(__enzyme_fwddiff((void *)response, x, 0.0), rgain, 1e-12, "fwd dgain == rev");
  /* Width 2: lane 0 is the width-1 shadow, lane 1 another one. */
  double *dgain1 = (double *)SHADOW_OF(&gain, 2, 1), *dlo1 = (double *)SHADOW_OF(&band.lo, 2, 1);
  CHECK_TRUE((double *)SHADOW_OF(&gain, 2, 0) == dgain, "lane 0 is the width-1 shadow");
  *dgain1 = 0, *dlo1 = 1.0;
  Pair t = __enzyme_fwddiff_pair((void *)response, enzyme_width, 2, x, 0.0, 0.0);
  CHECK_CLOSE(t.d0, rgain, 1e-12, "lane 0: gain");
  CHECK_CLOSE(t.d1, rlo, 1e-12, "lane 1: lo");
}

/* ---- a global holding a pointer to another global ---- */
double table[3] = {1.0, 2.0, 4.0};
struct View { double *base; long n; };
struct View view = {table, 3};
__attribute__((noinline)) static double weigh(double x) {
  double s = 0;
  for (long i = 0; i < view.n; ++i)
    s += view.base[i] * pow(x, (double)i);
  return s;
}

static void pointer_globals(void) {
  void *ctx = __enzyme_context(1);
  double **dbase = (double **)__enzyme_shadow(ctx, &view.base, 0);
  long *dn = (long *)__enzyme_shadow(ctx, &view.n, 0);
  double *dtable = (double *)__enzyme_shadow(ctx, table, 0);
  CHECK_TRUE(*dbase == dtable, "the shadow pointer points to the pointee's shadow");
  CHECK_TRUE(*dn == 3, "integers are copied");
  double x = 1.7;
  __enzyme_zero_shadows(ctx);
  CHECK_TRUE(*dbase == dtable && *dn == 3, "zeroing keeps pointers and integers");
  __enzyme_autodiff((void *)weigh, enzyme_context, ctx, x);
  for (int i = 0; i < 3; ++i)
    CHECK_CLOSE(dtable[i], pow(x, i), 1e-12, "rev dtable[%d]", i);
  for (int i = 0; i < 3; ++i) {
    __enzyme_zero_shadows(ctx);
    dtable[i] = 1.0;
    CHECK_CLOSE(__enzyme_fwddiff((void *)weigh, enzyme_context, ctx, x, 0.0), pow(x, i), 1e-12, "fwd dtable[%d]", i);
  }
  /* A context of width 2: each lane's pointer points to that lane's shadow. */
  void *ctx2 = __enzyme_context(2);
  double *t0 = (double *)__enzyme_shadow(ctx2, table, 0), *t1 = (double *)__enzyme_shadow(ctx2, table, 1);
  CHECK_TRUE(*(double **)__enzyme_shadow(ctx2, &view.base, 1) == t1, "lane 1 pointer");
  t0[0] = 1.0, t1[2] = 1.0;
  Pair t = __enzyme_fwddiff_pair((void *)weigh, enzyme_context, ctx2, x, 0.0, 0.0);
  CHECK_CLOSE(t.d0, 1.0, 1e-12, "width 2 lane 0");
  CHECK_CLOSE(t.d1, x * x, 1e-12, "width 2 lane 1");
}

/* ---- fwd over rev: the inner gradient's context, the outer tangent's context ---- */
double stiff = 2.0;
__attribute__((noinline)) static double energy(double x) { return stiff * x * x * x * x; }
__attribute__((noinline)) static double force(double x) {
  void *inner = __enzyme_context(1);
  *(double *)__enzyme_shadow(inner, &stiff, 0) = 0.0;
  return __enzyme_autodiff((void *)energy, enzyme_context, inner, x); /* 4 stiff x^3 */
}

static void nested(void) {
  void *outer = __enzyme_context(1);
  double *dstiff = (double *)__enzyme_shadow(outer, &stiff, 0);
  double x = 1.3;
  *dstiff = 0.0;
  CHECK_CLOSE(__enzyme_fwddiff((void *)force, enzyme_context, outer, x, 1.0), 12 * stiff * x * x, 1e-12, "d2E/dx2");
  *dstiff = 1.0;
  CHECK_CLOSE(__enzyme_fwddiff((void *)force, enzyme_context, outer, x, 0.0), 4 * x * x * x, 1e-12, "d2E/dx dstiff");
  CHECK_CLOSE(*dstiff, 1.0, 0, "the outer seed is left alone");
}

/* ---- the enzyme_shadow attribute: the user's own global is the shadow ---- */
double rate_adj = 0;
__attribute__((enzyme_shadow(rate_adj))) double rate = 0.25;
#ifdef __cplusplus
struct Cfg {
  static double bias_adj;
  __attribute__((enzyme_shadow(bias_adj))) static double bias;
};
double Cfg::bias_adj = 0, Cfg::bias = -1.0;
#define BIAS Cfg::bias
#define BIAS_ADJ Cfg::bias_adj
#else
double bias_adj = 0;
__attribute__((enzyme_shadow(bias_adj))) double bias = -1.0;
#define BIAS bias
#define BIAS_ADJ bias_adj
#endif
__attribute__((noinline)) static double decay(double x) { return exp(-rate * x) + BIAS * x; }

static void attribute(void) {
  double x = 2.0;
  double dx = __enzyme_autodiff((void *)decay, x);
  CHECK_CLOSE(dx, -rate * exp(-rate * x) + BIAS, 1e-12, "dx");
  CHECK_CLOSE(rate_adj, -x * exp(-rate * x), 1e-12, "rate adjoint in the named shadow");
  CHECK_CLOSE(BIAS_ADJ, x, 1e-12, "bias adjoint in the named shadow");
  double r = rate_adj;
  rate_adj = 1.0, BIAS_ADJ = 0.0;
  CHECK_CLOSE(__enzyme_fwddiff((void *)decay, x, 0.0), r, 1e-12, "fwd through the named shadow == rev");
  CHECK_CLOSE(rate, 0.25, 0, "primal untouched");
}

int main(void) {
  contexts();
  context_free();
  pointer_globals();
  nested();
  attribute();
  return check_report();
}
