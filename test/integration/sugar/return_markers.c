// Enzyme's return markers in the C convention, by value and by address, in both modes:
// enzyme_const_return (forward: the primal alone with enzyme_primal_return; reverse: the return
// seeds nothing), enzyme_dup_return with and without enzyme_primal_return, enzyme_active_return,
// enzyme_noret. Checked against analytic derivatives; forward and reverse agree.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
#include "check.h"

#ifdef __cplusplus
extern "C" {
#endif
extern int enzyme_const_return, enzyme_active_return, enzyme_dup_return, enzyme_primal_return,
    enzyme_noret;
typedef struct { double primal, tangent; } PT;
PT __enzyme_fwddiff_pt(void *, ...);
typedef struct { double primal, dx; } PG;
PG __enzyme_autodiff_pg(void *, ...);
#ifdef __cplusplus
}
#endif

static double f(double x) { return sin(x) * x; }
static double df(double x) { return cos(x) * x + sin(x); }
static double g(double x, double *out) {
  *out = x * x;
  return exp(x);
}

int main(void) {
  check_seed(53);
  for (int t = 0; t < 4; ++t) {
    double x = check_uniform(-2, 2);
    /* Forward. */
    CHECK_CLOSE(__enzyme_fwddiff((void *)f, enzyme_const_return, enzyme_primal_return, x, 1.0), f(x), 0,
                "fwd const_return + primal_return: the primal");
    CHECK_CLOSE(__enzyme_fwddiff((void *)f, &enzyme_dup_return, &enzyme_noret, x, 1.0), df(x), 1e-15,
                "fwd dup_return + noret (by address): the tangent");
    PT pt = __enzyme_fwddiff_pt((void *)f, enzyme_dup_return, enzyme_primal_return, x, 1.0);
    CHECK_CLOSE(pt.primal, f(x), 0, "fwd dup_return + primal_return: primal");
    CHECK_CLOSE(pt.tangent, df(x), 1e-15, "fwd dup_return + primal_return: tangent");
    /* Reverse. */
    double r = __enzyme_autodiff((void *)f, &enzyme_active_return, &enzyme_noret, enzyme_out, x);
    CHECK_CLOSE(r, df(x), 1e-15, "rev active_return");
    CHECK_CLOSE(r, pt.tangent, 1e-15, "forward = reverse");
    PG pg = __enzyme_autodiff_pg((void *)f, enzyme_active_return, enzyme_primal_return, x);
    CHECK_CLOSE(pg.primal, f(x), 0, "rev primal_return: primal");
    CHECK_CLOSE(pg.dx, df(x), 1e-15, "rev primal_return: adjoint");
    /* A constant return: only the output written through the pointer seeds the adjoint. */
    double out = 0, dout = 1;
    double rc = __enzyme_autodiff((void *)g, enzyme_const_return, enzyme_out, x, enzyme_dup, &out, &dout);
    CHECK_CLOSE(rc, 2 * x, 1e-15, "rev const_return: d(out)/dx only");
    out = 0, dout = 1;
    double ra = __enzyme_autodiff((void *)g, enzyme_out, x, enzyme_dup, &out, &dout);
    CHECK_CLOSE(ra, 2 * x + exp(x), 1e-14, "rev default: both");
  }
  return check_report();
}
