// Several enzyme_out arguments: the adjoints come back as a struct in argument order, whatever
// its ABI (two doubles in registers, three or more doubles through sret memory, floats packed in
// one register, an array member, mixed float/double), interleaved with enzyme_const scalars and
// enzyme_dup pointers (whose gradients are added into the shadow).
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -x c++ -O0 -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
#include "check.h"

typedef struct { double dx, dy; } G2;
typedef struct { double da, db, dc; } G3;
typedef struct { double d[5]; } G5;
typedef struct { float da, db, dc; } G3f;
typedef struct { double dx; float dy; } Gmix;
G2 __enzyme_autodiff_2(void *, ...);
G3 __enzyme_autodiff_3(void *, ...);
G5 __enzyme_autodiff_5(void *, ...);
G3f __enzyme_autodiff_3f(void *, ...);
Gmix __enzyme_autodiff_mix(void *, ...);

static double f3(double a, double b, double c) { return a * b * c + sin(a) * exp(c) - b / c; }
static double f5(double x0, double x1, double x2, double x3, double x4) {
  return x0 * x1 + x1 * x2 * x2 + cos(x3) * x4 + x0 * x0 * x0 * x4;
}
static float f3f(float a, float b, float c) { return a * b + b * c * c + sinf(a); }
static double fmix(double x, float y) { return x * (double)y * (double)y + exp(x); }

/* active x, const c, dup vector p (length 3), active y: returns {dx, dy}, p gradient into dp */
static double interleaved(double x, double c, double *p, int n, double y) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += p[i] * p[i] * x + c * p[i] * y;
  return s + x * y * c;
}

static double fd3(const double *v, void *c) {
  (void)c;
  return f3(v[0], v[1], v[2]);
}

int main(void) {
  check_seed(3);
  for (int t = 0; t < 6; ++t) {
    double a = check_uniform(-1.5, 1.5), b = check_uniform(-1.5, 1.5), c = check_uniform(0.5, 2);
    double ga = b * c + cos(a) * exp(c), gb = a * c - 1 / c, gc = a * b + sin(a) * exp(c) + b / (c * c);
    double v[3] = {a, b, c}, fdg[3];
    check_fd_grad(fd3, 0, v, 3, fdg);
    CHECK_CLOSE(fdg[0], ga, 1e-7, "ref f3 da");
    CHECK_CLOSE(fdg[1], gb, 1e-7, "ref f3 db");
    CHECK_CLOSE(fdg[2], gc, 1e-7, "ref f3 dc");

    G3 g = __enzyme_autodiff_3((void *)f3, a, b, c);
    CHECK_CLOSE(g.da, ga, 1e-13, "rev f3 da");
    CHECK_CLOSE(g.db, gb, 1e-13, "rev f3 db");
    CHECK_CLOSE(g.dc, gc, 1e-13, "rev f3 dc");
    /* middle one const: two outs, G2 in order (a, c) */
    G2 h = __enzyme_autodiff_2((void *)f3, enzyme_out, a, enzyme_const, b, enzyme_out, c);
    CHECK_CLOSE(h.dx, ga, 1e-13, "rev f3 (a, const b, c) da");
    CHECK_CLOSE(h.dy, gc, 1e-13, "rev f3 (a, const b, c) dc");
    /* first const */
    G2 k = __enzyme_autodiff_2((void *)f3, enzyme_const, a, b, c);
    CHECK_CLOSE(k.dx, gb, 1e-13, "rev f3 (const a) db");
    CHECK_CLOSE(k.dy, gc, 1e-13, "rev f3 (const a) dc");
    /* forward agrees (dot-product test with w = 1) */
    double va = check_uniform(-1, 1), vb = check_uniform(-1, 1), vc = check_uniform(-1, 1);
    CHECK_CLOSE(__enzyme_fwddiff((void *)f3, a, va, b, vb, c, vc), g.da * va + g.db * vb + g.dc * vc,
                1e-13, "fwd/rev dot f3");

    double x[5];
    check_fill(x, 5, -1.5, 1.5);
    G5 g5 = __enzyme_autodiff_5((void *)f5, x[0], x[1], x[2], x[3], x[4]);
    double w5[5] = {x[1] + 3 * x[0] * x[0] * x[4], x[0] + x[2] * x[2], 2 * x[1] * x[2],
                    -sin(x[3]) * x[4], cos(x[3]) + x[0] * x[0] * x[0]};
    for (int i = 0; i < 5; ++i)
      CHECK_CLOSE(g5.d[i], w5[i], 1e-13, "rev f5 d[%d]", i);

    float fa = (float)a, fb = (float)b, fc = (float)c;
    G3f gf = __enzyme_autodiff_3f((void *)f3f, fa, fb, fc);
    CHECK_CLOSE(gf.da, (double)fb + cos((double)fa), 1e-6, "rev f3f da");
    CHECK_CLOSE(gf.db, (double)fa + (double)fc * fc, 1e-6, "rev f3f db");
    CHECK_CLOSE(gf.dc, 2.0 * fb * fc, 1e-6, "rev f3f dc");

    Gmix gm = __enzyme_autodiff_mix((void *)fmix, a, fb);
    CHECK_CLOSE(gm.dx, (double)fb * fb + exp(a), 1e-13, "rev mix dx");
    CHECK_CLOSE(gm.dy, 2.0 * a * fb, 1e-6, "rev mix dy (float)");

    /* interleaved with const and dup */
    double p[3], dp[3] = {10, 20, 30};
    check_fill(p, 3, -1, 1);
    double y = check_uniform(-1, 1);
    G2 gi = __enzyme_autodiff_2((void *)interleaved, a, enzyme_const, c, enzyme_dup, p, dp,
                                enzyme_const, 3, y);
    double wx = 0, wy = 0;
    for (int i = 0; i < 3; ++i) {
      wx += p[i] * p[i];
      wy += c * p[i];
      CHECK_CLOSE(dp[i], 10.0 * (i + 1) + 2 * p[i] * a + c * y, 1e-13, "rev interleaved dp[%d] (+=)", i);
    }
    CHECK_CLOSE(gi.dx, wx + y * c, 1e-13, "rev interleaved dx");
    CHECK_CLOSE(gi.dy, wy + a * c, 1e-13, "rev interleaved dy");
  }
  return check_report();
}
