// Workspace buffers kept in global aggregates, allocated before the derivative runs: a struct
// with a buffer pointer, a count and a double, set up by an init function, and an array of two
// buffer pointers assigned at constant indices. Each heap-pointer field gets a zeroed shadow
// block of its block's size at run time, made again when the field points to another block
// (before: refused, or, with a double in the struct, a write through a null shadow that crashed).
// Reverse and forward against the analytic gradient, twice per setup and after a re-allocation;
// Hessian columns of the struct's function by forward over reverse and reverse over reverse
// against the analytic Hessian (the first-order shadow struct is itself a workspace struct to
// the second-order derivative).
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
#include "check.h"

#define N 5
static struct workspace {
  double *buf;
  double scale;
  int n;
} ws;

static void ws_init(int n) {
  free(ws.buf);
  ws.buf = (double *)malloc(n * sizeof(double));
  ws.n = n;
  ws.scale = 0.5;
}

/* f(x) = scale * sum_i x_i^2 x_{i+1}, cyclic, through ws.buf */
static double f_struct(const double *x) {
  for (int i = 0; i < ws.n; i++)
    ws.buf[i] = x[i] * x[i];
  double s = 0;
  for (int i = 0; i < ws.n; i++)
    s += ws.buf[i] * x[(i + 1) % ws.n];
  return ws.scale * s;
}

static double *bufs[2];

/* g(x) = sum_i sin(x_i) * x_i^2, the two factors in two buffers */
static double f_table(const double *x) {
  for (int i = 0; i < N; i++) {
    bufs[0][i] = sin(x[i]);
    bufs[1][i] = x[i] * x[i];
  }
  double s = 0;
  for (int i = 0; i < N; i++)
    s += bufs[0][i] * bufs[1][i];
  return s;
}

static void check_struct(const double *x, const char *when) {
  for (int round = 0; round < 2; round++) {
    double dx[N] = {0};
    __enzyme_autodiff((void *)f_struct, enzyme_dup, x, dx);
    for (int i = 0; i < N; i++) {
      int p = (i + N - 1) % N, q = (i + 1) % N;
      double want = 0.5 * (2 * x[i] * x[q] + x[p] * x[p]);
      double v[N] = {0};
      v[i] = 1;
      CHECK_CLOSE(dx[i], want, 1e-12, "struct %s reverse d/dx[%d] round %d", when, i, round);
      CHECK_CLOSE(__enzyme_fwddiff((void *)f_struct, enzyme_dup, x, v), want, 1e-12,
                  "struct %s forward d/dx[%d] round %d", when, i, round);
    }
  }
}

static void grad_struct(const double *x, double *dx) {
  for (int i = 0; i < N; i++)
    dx[i] = 0;
  __enzyme_autodiff((void *)f_struct, enzyme_dup, x, dx);
}

/* H[i][j] of 0.5 * sum_i x_i^2 x_{i+1} */
static double hessian_struct(const double *x, int i, int j) {
  double h = 0;
  if (i == j)
    h += x[(i + 1) % N];
  if (j == (i + 1) % N)
    h += x[i];
  if (i == (j + 1) % N)
    h += x[j];
  return h;
}

static void check_hessian(const double *x) {
  for (int j = 0; j < N; j++) {
    double v[N] = {0}, dx[N], hv[N] = {0}, seed[N] = {0}, hr[N] = {0};
    v[j] = 1;
    seed[j] = 1;
    __enzyme_fwddiff((void *)grad_struct, enzyme_dup, x, v, enzyme_dup, dx, hv);
    __enzyme_autodiff((void *)grad_struct, enzyme_dup, x, hr, enzyme_dup, dx, seed);
    for (int i = 0; i < N; i++) {
      CHECK_CLOSE(hv[i], hessian_struct(x, i, j), 1e-12, "struct fwd∘rev H[%d][%d]", i, j);
      CHECK_CLOSE(hr[i], hessian_struct(x, i, j), 1e-12, "struct rev∘rev H[%d][%d]", i, j);
    }
  }
}

int main(void) {
  const double x[N] = {0.3, -1.1, 0.8, 2.0, -0.4};
  ws_init(N);
  check_struct(x, "first block");
  ws_init(N); /* another block: the shadow follows it */
  check_struct(x, "second block");
  check_hessian(x);
  check_hessian(x);

  bufs[0] = (double *)malloc(N * sizeof(double));
  bufs[1] = (double *)malloc(N * sizeof(double));
  for (int round = 0; round < 2; round++) {
    double dx[N] = {0};
    __enzyme_autodiff((void *)f_table, enzyme_dup, x, dx);
    for (int i = 0; i < N; i++) {
      double want = cos(x[i]) * x[i] * x[i] + 2 * sin(x[i]) * x[i];
      double v[N] = {0};
      v[i] = 1;
      CHECK_CLOSE(dx[i], want, 1e-12, "table reverse d/dx[%d] round %d", i, round);
      CHECK_CLOSE(__enzyme_fwddiff((void *)f_table, enzyme_dup, x, v), want, 1e-12, "table forward d/dx[%d] round %d", i, round);
    }
  }
  free(bufs[0]);
  free(bufs[1]);
  free(ws.buf);
  return check_report();
}
