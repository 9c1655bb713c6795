// Reverse mode of functions that return a struct: the seed of the return adjoint is passed as a
// last argument of the function's return type, one weight per field, and the adjoints are the
// gradient of <seed, f(x)>. Covered ABIs of the returned struct (and so of the seed operands):
// two doubles in registers, two floats packed in <2 x float>, three floats ({<2 x float>, float}),
// {double, float}, a struct holding an array (the seed goes through memory, byval), a struct
// with a single float field and an int (no seed needed: 1 in the float field; or a plain float
// as its seed), and the primal
// returned too (enzyme_primal_return, result through sret); a function returning three doubles
// through a hidden sret pointer, passed explicitly with its shadow as the seed. Checked against analytic values and
// central differences of <seed, f>, and forward mode (tangent structs) against reverse with the
// dot-product test <seed, J v> = <J^T seed, v>.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O0 -I%inputs %s -o %t4 -lm && %t4
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t5 -lm && %t5
#include "check.h"

typedef struct { double a, b; } P2;
typedef struct { float a, b; } P2f;
typedef struct { float a, b, c; } P3f;
typedef struct { double a; float b; } Pdf;
typedef struct { double d[2]; } Pa;
typedef struct { double v; int flag; } Pflag;
typedef struct { double dx, dy; } G2;
typedef struct { float dx, dy; } G2f;
typedef struct { P2 primal; double dx, dy; } PG2;

#ifdef __cplusplus
extern "C" {
#endif
extern int enzyme_primal_return;
G2 __enzyme_autodiff_2(void *, ...);
G2f __enzyme_autodiff_2f(void *, ...);
float __enzyme_autodiff_f(void *, ...);
PG2 __enzyme_autodiff_pg2(void *, ...);
P2 __enzyme_fwddiff_p2(void *, ...);
P2f __enzyme_fwddiff_p2f(void *, ...);
#ifdef __cplusplus
}
#endif

/* J = [[cos(x) y, sin(x)], [2x, exp(y)]] */
static P2 p2(double x, double y) {
  P2 r = {sin(x) * y, x * x + exp(y)};
  return r;
}
static P2f p2f(float x, float y) {
  P2f r = {x * y, sinf(x)};
  return r;
}
static P3f p3f(float x) {
  P3f r = {x * x, sinf(x), 3 * x};
  return r;
}
static Pdf pdf(double x) {
  Pdf r = {x * x, (float)(3 * x)};
  return r;
}
static Pa pa(double x, double y) {
  Pa r = {{x * y, x - y * y}};
  return r;
}
/* three doubles: returned through a hidden sret pointer, which the caller passes explicitly */
typedef struct { double a, b, c; } P3;
static P3 p3(double x, double y) {
  P3 r = {x * y, x + y, sin(x)};
  return r;
}
static Pflag pflag(double x) {
  Pflag r = {x * x * x, 7};
  return r;
}

typedef struct { double s0, s1; } Weights;
static double weighted_p2(const double *v, void *ctx) {
  const Weights *w = (const Weights *)ctx;
  P2 r = p2(v[0], v[1]);
  return w->s0 * r.a + w->s1 * r.b;
}

int main(void) {
  check_seed(11);
  for (int t = 0; t < 5; ++t) {
    double x = check_uniform(-1.5, 1.5), y = check_uniform(-1, 1);
    double s0 = check_uniform(-2, 2), s1 = check_uniform(-2, 2);

    /* {double, double}: seed in two registers */
    P2 seed = {s0, s1};
    G2 g = __enzyme_autodiff_2((void *)p2, x, y, seed);
    double gx = s0 * cos(x) * y + s1 * 2 * x, gy = s0 * sin(x) + s1 * exp(y);
    CHECK_CLOSE(g.dx, gx, 1e-13, "rev p2 dx (seed %g %g)", s0, s1);
    CHECK_CLOSE(g.dy, gy, 1e-13, "rev p2 dy");
    Weights w = {s0, s1};
    double v[2] = {x, y}, fd[2];
    check_fd_grad(weighted_p2, &w, v, 2, fd);
    CHECK_CLOSE(g.dx, fd[0], 1e-7, "rev p2 dx vs FD");
    CHECK_CLOSE(g.dy, fd[1], 1e-7, "rev p2 dy vs FD");
    /* unit seeds pick single fields */
    P2 e0 = {1, 0}, e1 = {0, 1};
    G2 g0 = __enzyme_autodiff_2((void *)p2, x, y, e0), g1 = __enzyme_autodiff_2((void *)p2, x, y, e1);
    CHECK_CLOSE(g0.dx, cos(x) * y, 1e-13, "rev p2 d(a)/dx");
    CHECK_CLOSE(g1.dx, 2 * x, 1e-13, "rev p2 d(b)/dx");
    CHECK_CLOSE(g1.dy, exp(y), 1e-13, "rev p2 d(b)/dy");
    /* forward: the tangent struct J v; dot-product test against reverse */
    double vx = check_uniform(-1, 1), vy = check_uniform(-1, 1);
    P2 jv = __enzyme_fwddiff_p2((void *)p2, x, vx, y, vy);
    CHECK_CLOSE(jv.a, cos(x) * y * vx + sin(x) * vy, 1e-13, "fwd p2 a");
    CHECK_CLOSE(jv.b, 2 * x * vx + exp(y) * vy, 1e-13, "fwd p2 b");
    CHECK_CLOSE(s0 * jv.a + s1 * jv.b, g.dx * vx + g.dy * vy, 1e-13, "dot test p2");

    /* <2 x float>: seed packed in one register */
    float fx = (float)x, fy = (float)y;
    P2f sf = {(float)s0, (float)s1};
    G2f gf = __enzyme_autodiff_2f((void *)p2f, fx, fy, sf);
    CHECK_CLOSE(gf.dx, sf.a * fy + sf.b * cos((double)fx), 1e-6, "rev p2f dx");
    CHECK_CLOSE(gf.dy, sf.a * fx, 1e-6, "rev p2f dy");
    P2f jf = __enzyme_fwddiff_p2f((void *)p2f, fx, 1.0f, fy, 0.0f);
    CHECK_CLOSE(sf.a * jf.a + sf.b * jf.b, gf.dx, 1e-6, "dot test p2f (v = e_x)");

    /* {<2 x float>, float}: three float fields, one enzyme_out argument */
    P3f s3 = {0.5f, -1.0f, 2.0f};
    float d3 = __enzyme_autodiff_f((void *)p3f, fx, s3);
    CHECK_CLOSE(d3, 0.5 * 2 * fx - cos((double)fx) + 2.0 * 3, 1e-6, "rev p3f dx");

    /* {double, float} */
    Pdf sdf = {s0, (float)s1};
    double ddf = __enzyme_autodiff((void *)pdf, x, sdf);
    CHECK_CLOSE(ddf, s0 * 2 * x + (double)(float)s1 * 3, 1e-6, "rev pdf dx");

    /* a struct holding an array: the seed operand is a byval pointer */
    Pa sa = {{s0, s1}};
    G2 ga = __enzyme_autodiff_2((void *)pa, x, y, sa);
    CHECK_CLOSE(ga.dx, s0 * y + s1, 1e-13, "rev pa dx");
    CHECK_CLOSE(ga.dy, s0 * x - s1 * 2 * y, 1e-13, "rev pa dy");

    /* a single float field next to an int: the default seed 1 is unambiguous */
    CHECK_CLOSE(__enzyme_autodiff((void *)pflag, x), 3 * x * x, 1e-13, "rev pflag dx (default seed)");
    Pflag sfl = {s0, 0};
    CHECK_CLOSE(__enzyme_autodiff((void *)pflag, x, sfl), s0 * 3 * x * x, 1e-13, "rev pflag dx (seed)");
    CHECK_CLOSE(__enzyme_autodiff((void *)pflag, x, s1), s1 * 3 * x * x, 1e-13, "rev pflag dx (float seed)");

    /* a function returning through sret: its buffer and shadow come first, the shadow holding
       the seed (reverse) or receiving the tangent (forward) */
    P3 out, dout = {s0, s1, 0.5};
    G2 g3 = __enzyme_autodiff_2((void *)p3, enzyme_dup, &out, &dout, x, y);
    CHECK_CLOSE(g3.dx, s0 * y + s1 + 0.5 * cos(x), 1e-13, "rev p3 (sret) dx");
    CHECK_CLOSE(g3.dy, s0 * x + s1, 1e-13, "rev p3 (sret) dy");
    CHECK_CLOSE(out.a, x * y, 1e-15, "rev p3 (sret) primal a");
    CHECK_CLOSE(out.c, sin(x), 1e-15, "rev p3 (sret) primal c");
    P3 tout, tdot;
    __enzyme_fwddiff((void *)p3, enzyme_dup, &tout, &tdot, x, vx, y, vy);
    CHECK_CLOSE(tdot.a, y * vx + x * vy, 1e-13, "fwd p3 (sret) a");
    CHECK_CLOSE(s0 * tdot.a + s1 * tdot.b + 0.5 * tdot.c, g3.dx * vx + g3.dy * vy, 1e-13,
                "dot test p3 (sret)");

    /* the primal too: {P2, dx, dy} comes back through sret */
    PG2 pg = __enzyme_autodiff_pg2((void *)p2, enzyme_primal_return, x, y, seed);
    CHECK_CLOSE(pg.primal.a, sin(x) * y, 1e-15, "rev p2 primal a");
    CHECK_CLOSE(pg.primal.b, x * x + exp(y), 1e-15, "rev p2 primal b");
    CHECK_CLOSE(pg.dx, gx, 1e-13, "rev p2 dx (with primal)");
    CHECK_CLOSE(pg.dy, gy, 1e-13, "rev p2 dy (with primal)");
  }
  return check_report();
}
