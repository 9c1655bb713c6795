// enzyme_const data: constant arrays of coefficients, constant scalars, constant structs and
// pointers to constant tables passed explicitly with enzyme_const; inactive data read next to
// active data; a constant argument that aliases nothing. No shadow is passed for them and none
// may be touched.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -x c++ -O0 -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
#include "check.h"

#define N 6
typedef struct {
  double a, b;
  int n;
  const double *table;
} Params;

/* f(x) = sum_i c[i] * sin(p.a * x[i] + p.b) + p.table[i % p.n] * x[i]^2 + s * x0 */
static double model(const double *c, const Params *p, double *x, double s, int n) {
  double r = 0;
  for (int i = 0; i < n; ++i)
    r += c[i] * sin(p->a * x[i] + p->b) + p->table[i % p->n] * x[i] * x[i];
  return r + s * x[0];
}

/* constant matrix, active vector, output vector */
static void apply(const double *A, const double *x, double *y, int n) {
  for (int i = 0; i < n; ++i) {
    double s = 0;
    for (int j = 0; j < n; ++j)
      s += A[i * n + j] * x[j];
    y[i] = s * s;
  }
}

/* constant scalar parameter (double) with an active one */
static double scaled(double x, double k) { return exp(k * x) / (1 + k); }

int main(void) {
  check_seed(47);
  double table[3] = {0.5, -0.25, 1.5};
  for (int t = 0; t < 4; ++t) {
    double c[N], x[N], dx[N], v[N];
    check_fill(c, N, -1, 1);
    check_fill(x, N, -1, 1);
    Params p = {check_uniform(0.5, 2), check_uniform(-1, 1), 3, table};
    double s = check_uniform(-1, 1);
    double c_copy[N];
    memcpy(c_copy, c, sizeof c);
    memset(dx, 0, sizeof dx);
    __enzyme_autodiff((void *)model, enzyme_const, c, enzyme_const, &p, enzyme_dup, x, dx, enzyme_const, s,
                      enzyme_const, N);
    for (int i = 0; i < N; ++i) {
      double want = c[i] * cos(p.a * x[i] + p.b) * p.a + 2 * table[i % 3] * x[i] + (i == 0 ? s : 0);
      CHECK_CLOSE(dx[i], want, 1e-14, "rev model dx[%d]", i);
      CHECK_TRUE(c[i] == c_copy[i], "const data unchanged c[%d]", i);
    }
    CHECK_TRUE(table[0] == 0.5 && table[1] == -0.25 && table[2] == 1.5, "const table unchanged");
    check_fill(v, N, -1, 1);
    double tf = __enzyme_fwddiff((void *)model, enzyme_const, c, enzyme_const, &p, enzyme_dup, x, v,
                                 enzyme_const, s, enzyme_const, N);
    CHECK_CLOSE(tf, check_dot(dx, v, N), 1e-14, "fwd model dot test");

    double A[N * N], y[N], dy[N], w[N];
    check_fill(A, N * N, -1, 1);
    __enzyme_fwddiff((void *)apply, enzyme_const, A, x, v, y, dy, N);
    for (int i = 0; i < N; ++i) {
      double ax = 0, av = 0;
      for (int j = 0; j < N; ++j) {
        ax += A[i * N + j] * x[j];
        av += A[i * N + j] * v[j];
      }
      CHECK_CLOSE(dy[i], 2 * ax * av, 1e-14, "fwd apply dy[%d]", i);
    }
    double jvw;
    check_fill(w, N, -1, 1);
    jvw = check_dot(dy, w, N);
    memcpy(dy, w, sizeof w);
    memset(dx, 0, sizeof dx);
    __enzyme_autodiff((void *)apply, enzyme_const, A, x, dx, y, dy, N);
    CHECK_CLOSE(jvw, check_dot(v, dx, N), 1e-13, "apply dot test");

    double xx = check_uniform(-1, 1), k = check_uniform(0.5, 2);
    CHECK_CLOSE(__enzyme_autodiff((void *)scaled, xx, enzyme_const, k), k * exp(k * xx) / (1 + k), 1e-14,
                "rev scaled const k");
    CHECK_CLOSE(__enzyme_fwddiff((void *)scaled, enzyme_const, xx, k, 1.0),
                xx * exp(k * xx) / (1 + k) - exp(k * xx) / ((1 + k) * (1 + k)), 1e-14, "fwd scaled const x");
  }
  return check_report();
}
