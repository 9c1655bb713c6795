// Custom derivatives registered in Enzyme's convention (__enzyme_register_gradient_NAME =
// {f, augmented_f, reverse_f}, __enzyme_register_derivative_NAME = {f, forward_f}):
//  - derivatives that deliberately differ from the body's, so the numbers prove the registration
//    wins over differentiating the body (Enzyme's own square_ example, and a linear function);
//  - active double arguments and an active double return, with the adjoints of two arguments
//    returned as a struct, and an augmented function returning {tape, result} whose tape is a
//    malloc'd block the reverse function frees, called in a loop;
//  - an augmented function returning nothing, so f itself gives the result (Enzyme's rsqrt
//    example), and a tangent-only forward derivative.
// Forward and reverse agree, and both agree with the analytic derivative of what was registered.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t5 -lm && %t5
// RUN: %synthase-cxx -x c++ -O0 -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
#include "check.h"

/* 1. Enzyme's customcombined/customfwd example: every derivative is a made-up constant. */
__attribute__((noinline)) static void square_(const double *src, double *dest) { *dest = *src * *src; }
static int augment, gradient, derivative;
static void *augment_square_(const double *src, const double *d_src, double *dest, double *d_dest) {
  (void)src, (void)d_src;
  augment++;
  *dest = 7.0;
  *d_dest = 11.0;
  return NULL;
}
static void gradient_square_(const double *src, double *d_src, const double *dest, const double *d_dest, void *tape) {
  (void)src, (void)dest, (void)d_dest, (void)tape;
  gradient++;
  *d_src = 13.0;
}
static void derivative_square_(const double *src, const double *d_src, const double *dest, double *d_dest) {
  (void)src, (void)d_src, (void)dest;
  derivative++;
  *d_dest = 100;
}
void *__enzyme_register_gradient_square[] = {(void *)square_, (void *)augment_square_, (void *)gradient_square_};
void *__enzyme_register_derivative_square[] = {(void *)square_, (void *)derivative_square_};
static double square(double x) {
  double y;
  square_(&x, &y);
  return y;
}

/* 2. lin(x) = 3x, registered as if its derivative were 5. */
__attribute__((noinline)) static double lin(double x) { return 3 * x; }
static double lin_aug(double x) { return lin(x); }
static double lin_rev(double x, double dret) { (void)x; return 5 * dret; }
static double lin_fwd(double x, double dx) { (void)x; return 5 * dx; }
void *__enzyme_register_gradient_lin[3] = {(void *)lin, (void *)lin_aug, (void *)lin_rev};
void *__enzyme_register_derivative_lin[2] = {(void *)lin, (void *)lin_fwd};
static double uses_lin(double x) { return lin(x) * x; } /* registered derivative: 5x + 3x */

/* 3. hyp(a, b) = sqrt(a^2 + b^2): the tape is a malloc'd block holding the partials. */
static double hyp(double a, double b) { return sqrt(a * a + b * b); }
typedef struct { double *tape; double h; } HypAug;
typedef struct { double da, db; } HypAdj;
typedef struct { double h, dh; } HypTan;
static int mallocs, frees;
static HypAug hyp_aug(double a, double b) {
  HypAug r;
  r.h = hyp(a, b);
  r.tape = (double *)malloc(2 * sizeof(double));
  ++mallocs;
  r.tape[0] = a / r.h;
  r.tape[1] = b / r.h;
  return r;
}
static HypAdj hyp_rev(double a, double b, double dret, double *tape) {
  (void)a, (void)b;
  HypAdj d = {dret * tape[0], dret * tape[1]};
  free(tape);
  ++frees;
  return d;
}
static HypTan hyp_fwd(double a, double da, double b, double db) {
  HypTan t;
  t.h = hyp(a, b);
  t.dh = (a * da + b * db) / t.h;
  return t;
}
void *__enzyme_register_gradient_hyp[3] = {(void *)hyp, (void *)hyp_aug, (void *)hyp_rev};
void *__enzyme_register_derivative_hyp[2] = {(void *)hyp, (void *)hyp_fwd};
#define NP 6
/* length of the polyline through NP points, weighted per segment */
static double path(const double *p) {
  double s = 0;
  for (int i = 0; i + 1 < NP; ++i)
    s += (i + 1) * hyp(p[2 * i + 2] - p[2 * i], p[2 * i + 3] - p[2 * i + 1]);
  return s;
}
static void path_grad(const double *p, double *g) {
  for (int i = 0; i < 2 * NP; ++i)
    g[i] = 0;
  for (int i = 0; i + 1 < NP; ++i) {
    double a = p[2 * i + 2] - p[2 * i], b = p[2 * i + 3] - p[2 * i + 1], h = sqrt(a * a + b * b);
    g[2 * i + 2] += (i + 1) * a / h, g[2 * i] -= (i + 1) * a / h;
    g[2 * i + 3] += (i + 1) * b / h, g[2 * i + 1] -= (i + 1) * b / h;
  }
}

/* 4. An augmented function that returns nothing: f itself gives the result. */
static double mysin(double x) { return sin(x); }
static void mysin_aug(double x) { (void)x; }
static double mysin_rev(double x, double dret) { return cos(x) * dret; }
static double mysin_fwd(double x, double dx) { return cos(x) * dx; }
void *__enzyme_register_gradient_mysin[3] = {(void *)mysin, (void *)mysin_aug, (void *)mysin_rev};
void *__enzyme_register_derivative_mysin[2] = {(void *)mysin, (void *)mysin_fwd};
static double sin2(double x) { return mysin(x) * mysin(x) + x; }

int main(void) {
  /* 1 */
  CHECK_CLOSE(__enzyme_autodiff((void *)square, 3.0), 13.0, 0, "registered gradient (a made-up 13)");
  CHECK_TRUE(augment == 1 && gradient == 1, "augment %d gradient %d", augment, gradient);
  CHECK_CLOSE(__enzyme_fwddiff((void *)square, 3.0, 1.0), 100.0, 0, "registered derivative (a made-up 100)");
  CHECK_TRUE(derivative == 1, "derivative %d", derivative);

  /* 2 */
  for (double x = -1.5; x < 2; x += 0.75) {
    double r = __enzyme_autodiff((void *)uses_lin, x), t = __enzyme_fwddiff((void *)uses_lin, x, 1.0);
    CHECK_CLOSE(r, 8 * x, 1e-15, "reverse uses the registered 5, not the body's 3, at %g", x);
    CHECK_CLOSE(t, r, 1e-15, "forward = reverse at %g", x);
    /* f itself as the function to differentiate: the registration is used there too */
    CHECK_CLOSE(__enzyme_autodiff((void *)lin, x), 5, 0, "top-level reverse at %g", x);
    CHECK_CLOSE(__enzyme_fwddiff((void *)lin, x, 1.0), 5, 0, "top-level forward at %g", x);
  }

  /* 3: the tape is pushed and popped once per call in the loop */
  double p[2 * NP] = {0, 0, 1, 0.5, 1.5, 2, 3, 2.5, 2, 4, 4.5, 3.5}, g[2 * NP], dp[2 * NP] = {0};
  path_grad(p, g);
  for (int rep = 0; rep < 3; ++rep) {
    for (int i = 0; i < 2 * NP; ++i)
      dp[i] = 0;
    __enzyme_autodiff((void *)path, enzyme_dup, p, dp);
    for (int i = 0; i < 2 * NP; ++i)
      CHECK_CLOSE(dp[i], g[i], 1e-13, "path gradient [%d]", i);
  }
  CHECK_TRUE(mallocs == 3 * (NP - 1) && frees == mallocs, "tape blocks: %d malloc'd, %d freed", mallocs, frees);
  for (int k = 0; k < 2 * NP; ++k) {
    double v[2 * NP] = {0};
    v[k] = 1;
    double t = __enzyme_fwddiff((void *)path, enzyme_dup, p, v);
    CHECK_CLOSE(t, dp[k], 1e-13, "forward = reverse, direction %d", k);
  }

  /* 4 */
  for (double x = -2; x < 2; x += 0.5) {
    double r = __enzyme_autodiff((void *)sin2, x), t = __enzyme_fwddiff((void *)sin2, x, 1.0);
    CHECK_CLOSE(r, 2 * sin(x) * cos(x) + 1, 1e-14, "sin2' at %g", x);
    CHECK_CLOSE(t, r, 1e-15, "forward = reverse at %g", x);
  }
  return check_report();
}
