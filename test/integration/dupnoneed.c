// enzyme_dupnoneed: the primal result behind an output pointer is not needed, only its shadow.
// Forward: the shadow receives the tangent (the primal buffer may or may not be written). Reverse:
// the shadow seeds the adjoint and gradients flow into the inputs' shadows. Also the
// dupnoneed-style return: a function whose return value is unused by the caller.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -x c++ -O0 -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
#include "check.h"

#define N 6

static void f(const double *x, double *out, int n) {
  for (int i = 0; i < n; ++i)
    out[i] = exp(x[i]) * sin(x[(i + 1) % n]);
}

/* scalar output through a pointer, the value is also used internally */
static void g(double a, double b, double *res) {
  double t = a * b;
  *res = t * t + sin(t);
}

int main(void) {
  check_seed(61);
  for (int k = 0; k < 4; ++k) {
    double x[N], v[N], out[N], dout[N], ref[N], w[N], dx[N];
    check_fill(x, N, -1, 1);
    check_fill(v, N, -1, 1);
    __enzyme_fwddiff((void *)f, x, v, out, ref, N);
    for (int i = 0; i < N; ++i)
      out[i] = 123.0;
    __enzyme_fwddiff((void *)f, enzyme_dup, x, v, enzyme_dupnoneed, out, dout, enzyme_const, N);
    for (int i = 0; i < N; ++i)
      CHECK_CLOSE(dout[i], ref[i], 1e-15, "fwd dupnoneed tangent [%d]", i);
    for (int i = 0; i < N; ++i) {
      double want = exp(x[i]) * v[i] * sin(x[(i + 1) % N]) + exp(x[i]) * cos(x[(i + 1) % N]) * v[(i + 1) % N];
      CHECK_CLOSE(ref[i], want, 1e-14, "fwd dup tangent analytic [%d]", i);
    }

    check_fill(w, N, -1, 1);
    double jvw = check_dot(ref, w, N);
    memcpy(dout, w, sizeof w);
    memset(dx, 0, sizeof dx);
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_dupnoneed, out, dout, enzyme_const, N);
    CHECK_CLOSE(jvw, check_dot(v, dx, N), 1e-13, "rev dupnoneed dot test");

    double a = check_uniform(-1, 1), b = check_uniform(-1, 1), r = 0, dr = 1.0;
    double tt = a * b, dt = 2 * tt + cos(tt);
    check_g2 gg = __enzyme_autodiff_check_xy((void *)g, a, b, enzyme_dupnoneed, &r, &dr);
    CHECK_CLOSE(gg.dx, dt * b, 1e-14, "rev dupnoneed scalar out da");
    CHECK_CLOSE(gg.dy, dt * a, 1e-14, "rev dupnoneed scalar out db");
    double tr = 0;
    __enzyme_fwddiff((void *)g, a, 1.0, b, 0.0, enzyme_dupnoneed, &r, &tr);
    CHECK_CLOSE(tr, dt * b, 1e-14, "fwd dupnoneed scalar out");
  }
  return check_report();
}
