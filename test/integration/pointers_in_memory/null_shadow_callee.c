// Null shadows that cross a call or an offset. A constant input (enzyme_const, no shadow) kept in
// a struct that a callee reads, a pointer offset from it (`x + 1`: its shadow must stay null, not
// become null + 8) and stored, and a merge `c ? w : x + 1` used directly. The callee is recursive,
// so it keeps its own derivative: it used to trust every shadow it was given, and the reverse
// sweep added into null (or null + 8) and crashed; at -O2 main folded to `unreachable`.
// f(w) = (sum w_i^2)(sum x_i^2) + w0 (w1 + x2): df/dw = 2 w S_x + (w1 + x2, w0, 0).
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
#include "check.h"

struct M {
  const double *p;
  long n;
};

static double sum_sq(const struct M *m, long i) { return i == m->n ? 0 : m->p[i] * m->p[i] + sum_sq(m, i + 1); }

static double pick(const double *p, long i) { return i <= 0 ? p[0] : pick(p + 1, i - 1); }

double f(const double *w, const double *x, long n, int c) {
  struct M a = {w, n}, b = {x + 1, n - 1}, b0 = {x, 1};
  const double *q = c ? w : x + 1;
  return sum_sq(&a, 0) * (sum_sq(&b, 0) + sum_sq(&b0, 0)) + w[0] * (pick(q, 1) + pick(x, 2) * (c == 0)) +
         w[0] * w[1] * (c != 0);
}

int main(void) {
  double w[3] = {1, 2, 3}, x[3] = {0.5, 1, 1.5};
  for (int c = 0; c < 2; c++) {
    double g[3] = {0};
    __enzyme_autodiff((void *)f, enzyme_dup, w, g, enzyme_const, x, enzyme_const, 3L, enzyme_const, c);
    for (int i = 0; i < 3; i++) {
      double h = check_step(w[i]), v = w[i];
      w[i] = v + h;
      double p = f(w, x, 3, c);
      w[i] = v - h;
      double q = f(w, x, 3, c);
      w[i] = v;
      CHECK_CLOSE(g[i], (p - q) / (2 * h), 1e-7, "reverse dw[%d] (c=%d)", i, c);
      double e[3] = {0};
      e[i] = 1;
      double t = __enzyme_fwddiff((void *)f, enzyme_dup, w, e, enzyme_const, x, enzyme_const, 3L, enzyme_const, c);
      CHECK_CLOSE(t, g[i], 1e-10, "forward vs reverse dw[%d] (c=%d)", i, c);
    }
  }
  return check_report();
}
