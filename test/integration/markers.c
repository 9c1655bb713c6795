// How a call site names activities: markers passed by value (the usual Enzyme style), by address,
// explicit vs. default activities, a function pointer spilled to a local, a fully typed entry
// point prototype, the same function differentiated with several activity patterns in one
// program, and markers that are declared extern and never defined (the program must link).
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -x c++ -O0 -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
#include "check.h"

typedef struct { double dx, dy; } G2;
G2 __enzyme_autodiff_g2(void *, ...);
#ifdef __cplusplus
extern "C" {
#endif
/* fully typed prototypes: the function pointer keeps its type, markers are ints */
double __enzyme_autodiff_typed(double (*)(double, double), int, double, int, double);
double __enzyme_fwddiff_typed(double (*)(double, double), double, double, double, double);
void __enzyme_autodiff_void(void *, ...);
#ifdef __cplusplus
}
#endif

static double f(double x, double y) { return x * x * sin(y) + y * log(1 + x * x); }
static double fx(double x, double y) { return 2 * x * sin(y) + y * 2 * x / (1 + x * x); }
static double fy(double x, double y) { return x * x * cos(y) + log(1 + x * x); }

static double dotw(const double *w, double *v, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += w[i] * v[i] * v[i];
  return s;
}

int main(void) {
  check_seed(5);
  for (int t = 0; t < 5; ++t) {
    double x = check_uniform(-2, 2), y = check_uniform(-2, 2);
    double vx = check_uniform(-1, 1), vy = check_uniform(-1, 1);
    /* by value, every combination in one program: one generated function per pattern */
    G2 a = __enzyme_autodiff_g2((void *)f, enzyme_out, x, enzyme_out, y);
    CHECK_CLOSE(a.dx, fx(x, y), 1e-13, "out,out dx");
    CHECK_CLOSE(a.dy, fy(x, y), 1e-13, "out,out dy");
    G2 b = __enzyme_autodiff_g2((void *)f, x, y);
    CHECK_CLOSE(b.dx, fx(x, y), 1e-13, "default dx");
    CHECK_CLOSE(b.dy, fy(x, y), 1e-13, "default dy");
    CHECK_CLOSE(__enzyme_autodiff((void *)f, enzyme_const, x, enzyme_out, y), fy(x, y), 1e-13,
                "const,out");
    CHECK_CLOSE(__enzyme_autodiff((void *)f, x, enzyme_const, y), fx(x, y), 1e-13, "out,const");
    /* both const: nothing to return, the call must still be accepted */
    __enzyme_autodiff_void((void *)f, enzyme_const, x, enzyme_const, y);

    /* by address */
    G2 c = __enzyme_autodiff_g2((void *)f, &enzyme_out, x, &enzyme_out, y);
    CHECK_CLOSE(c.dx, fx(x, y), 1e-13, "by address dx");
    CHECK_CLOSE(c.dy, fy(x, y), 1e-13, "by address dy");
    CHECK_CLOSE(__enzyme_autodiff((void *)f, &enzyme_const, x, y), fy(x, y), 1e-13,
                "by address const");
    CHECK_CLOSE(__enzyme_fwddiff((void *)f, &enzyme_dup, x, vx, &enzyme_const, y), fx(x, y) * vx,
                1e-13, "fwd by address");

    /* forward: default (value, tangent), explicit enzyme_dup, enzyme_const */
    double tdef = __enzyme_fwddiff((void *)f, x, vx, y, vy);
    CHECK_CLOSE(tdef, fx(x, y) * vx + fy(x, y) * vy, 1e-13, "fwd default");
    CHECK_CLOSE(__enzyme_fwddiff((void *)f, enzyme_dup, x, vx, enzyme_dup, y, vy), tdef, 1e-15,
                "fwd explicit dup");
    CHECK_CLOSE(__enzyme_fwddiff((void *)f, enzyme_const, x, enzyme_dup, y, vy), fy(x, y) * vy,
                1e-13, "fwd const x");

    /* a function pointer spilled to a local (at -O0 a store/load pair) */
    void *fp = (void *)f;
    CHECK_CLOSE(__enzyme_autodiff(fp, enzyme_const, x, y), fy(x, y), 1e-13, "function in local");

    /* typed prototype */
    CHECK_CLOSE(__enzyme_autodiff_typed(f, enzyme_out, x, enzyme_const, y), fx(x, y), 1e-13,
                "typed prototype rev");
    CHECK_CLOSE(__enzyme_fwddiff_typed(f, x, vx, y, vy), tdef, 1e-13, "typed prototype fwd");

    /* pointer arguments: enzyme_const data and enzyme_dup data, by value and by address */
    double w[4], v[4], dv[4] = {0, 0, 0, 0};
    check_fill(w, 4, -1, 1);
    check_fill(v, 4, -1, 1);
    __enzyme_autodiff((void *)dotw, enzyme_const, w, enzyme_dup, v, dv, enzyme_const, 4);
    for (int i = 0; i < 4; ++i)
      CHECK_CLOSE(dv[i], 2 * w[i] * v[i], 1e-14, "dotw dv[%d]", i);
    double dv2[4] = {1, 1, 1, 1};
    __enzyme_autodiff((void *)dotw, &enzyme_const, w, v, dv2, 4); /* default: pointer is dup */
    for (int i = 0; i < 4; ++i)
      CHECK_CLOSE(dv2[i], 1 + 2 * w[i] * v[i], 1e-14, "dotw default dup dv[%d] (+=)", i);
    double tv[4];
    check_fill(tv, 4, -1, 1);
    double tt = __enzyme_fwddiff((void *)dotw, enzyme_const, w, enzyme_dup, v, tv, enzyme_const, 4);
    CHECK_CLOSE(tt, 2 * (w[0] * v[0] * tv[0] + w[1] * v[1] * tv[1] + w[2] * v[2] * tv[2] + w[3] * v[3] * tv[3]),
                1e-14, "fwd dotw");
  }
  return check_report();
}
