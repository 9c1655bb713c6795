// Found with boost odeint's dense-output stepper (issue 15): re-initializing it copies its state
// onto itself (std::copy -> memmove(p, p, 16)), and the reverse of that memmove added each
// element's adjoint to itself and then cleared it: every gradient came out 0 (forward mode was
// right). A memmove down onto an overlapping range (dst < src) lost adjoints the same way, the
// element loop reading an adjoint after an earlier element's addition had landed on it. Copies at
// run-time offsets (the plugin cannot see the overlap), in float and double, element arrays and
// arrays of structs {double; float;}, both modes against the analytic gradient (the copy is
// replayed on an array of indices to find where each element went).
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
#include "check.h"

static volatile int Shift[3] = {0, 1, -1}; /* run-time offsets: no pass folds the overlap away */
static int S;                              /* which one */
static const double P[6] = {0.3, -0.7, 1.1, 0.5, -1.3, 0.9};

/* x[i] = p[i]² (1 + i/10); x[2 + s .. 5 + s) = x[2 .. 5); sum of x[i] (i + 1.5) */
static void move_d(double *x) { memmove(x + 2 + Shift[S], x + 2, 3 * sizeof(double)); }
static double moved(const double *p) {
  double x[6];
  for (int i = 0; i < 6; ++i)
    x[i] = p[i] * p[i] * (1.0 + 0.1 * i);
  move_d(x);
  double r = 0;
  for (int i = 0; i < 6; ++i)
    r += x[i] * (i + 1.5);
  return r;
}
/* the source moves instead of the destination */
static void move_f(float *x) { memmove(x + 1, x + 1 - Shift[S], 4 * sizeof(float)); }
static double moved_f(const double *p) {
  float x[6];
  for (int i = 0; i < 6; ++i)
    x[i] = (float)(p[i] * p[i]);
  move_f(x);
  double r = 0;
  for (int i = 0; i < 6; ++i)
    r += x[i] * (i + 0.5);
  return r;
}
struct Mixed {
  double a;
  float b;
};
static void move_s(struct Mixed *x) { memmove(x + 1 + Shift[S], x + 1, 3 * sizeof(struct Mixed)); }
static double moved_struct(const double *p) {
  struct Mixed x[5];
  for (int i = 0; i < 5; ++i) {
    x[i].a = p[i] * p[i];
    x[i].b = (float)p[i + 1];
  }
  move_s(x);
  double r = 0;
  for (int i = 0; i < 5; ++i)
    r += x[i].a * (i + 1) + x[i].b * (2.0 - i);
  return r;
}

/* The analytic gradients: the same copies on arrays of indices tell which element went where. */
static void grad_moved(double *g) {
  double at[6];
  for (int i = 0; i < 6; ++i)
    at[i] = i;
  move_d(at);
  for (int j = 0; j < 6; ++j) {
    int i = (int)at[j];
    g[i] += (j + 1.5) * 2 * P[i] * (1.0 + 0.1 * i);
  }
}
static void grad_moved_f(double *g) {
  float at[6];
  for (int i = 0; i < 6; ++i)
    at[i] = (float)i;
  move_f(at);
  for (int j = 0; j < 6; ++j) {
    int i = (int)at[j];
    g[i] += (j + 0.5) * 2 * P[i];
  }
}
static void grad_moved_struct(double *g) {
  struct Mixed at[5];
  for (int i = 0; i < 5; ++i) {
    at[i].a = i;
    at[i].b = (float)(i + 1);
  }
  move_s(at);
  for (int j = 0; j < 5; ++j) {
    int i = (int)at[j].a, k = (int)at[j].b;
    g[i] += (j + 1) * 2 * P[i];
    g[k] += 2.0 - j;
  }
}

/* Float data: derivatives rounded to float, relative 1e-7 per operation. */
#define CHECK_FN(F, TOL)                                                                           \
  do {                                                                                             \
    double p[6], g[6] = {0}, want[6] = {0};                                                        \
    memcpy(p, P, sizeof p);                                                                        \
    __enzyme_autodiff((void *)F, enzyme_dup, p, g);                                                \
    grad_##F(want);                                                                                \
    for (int i = 0; i < 6; ++i) {                                                                  \
      double e[6] = {0};                                                                           \
      e[i] = 1;                                                                                    \
      CHECK_CLOSE(g[i], want[i], TOL, #F " shift %d reverse d/dp[%d]", Shift[S], i);               \
      CHECK_CLOSE(__enzyme_fwddiff((void *)F, enzyme_dup, p, e), want[i], TOL,                     \
                  #F " shift %d forward d/dp[%d]", Shift[S], i);                                   \
    }                                                                                              \
  } while (0)

int main(void) {
  for (S = 0; S < 3; ++S) {
    CHECK_FN(moved, 1e-14);
    CHECK_FN(moved_f, 1e-6);
    CHECK_FN(moved_struct, 1e-6);
  }
  return check_report();
}
