#include "ode.h"
#include "../harness/bench.h"
#include <stdio.h>
#include <stdlib.h>

static void rhs(const double *x, const double *y, double *out, long n) {
  out[0] = x[0];
  for (long i = 1; i < n; ++i) out[i] = x[i] * y[i - 1];
}

/* One RK4 step; k holds the four stages and u the stage points, 4n each, for the hand adjoint. */
static void rk4_step(const double *x, double *y, double *k, double *u, long n, double h) {
  double *k1 = k, *k2 = k + n, *k3 = k + 2 * n, *k4 = k + 3 * n;
  double *u2 = u + n, *u3 = u + 2 * n, *u4 = u + 3 * n;
  rhs(x, y, k1, n);
  for (long i = 0; i < n; ++i) u2[i] = y[i] + 0.5 * h * k1[i];
  rhs(x, u2, k2, n);
  for (long i = 0; i < n; ++i) u3[i] = y[i] + 0.5 * h * k2[i];
  rhs(x, u3, k3, n);
  for (long i = 0; i < n; ++i) u4[i] = y[i] + h * k3[i];
  rhs(x, u4, k4, n);
  for (long i = 0; i < n; ++i) y[i] += h / 6.0 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
}

double ode_primal(const double *x, long n, long s) {
  double *y = calloc((size_t)n, sizeof(double)), *k = malloc(sizeof(double) * 8 * (size_t)n);
  double h = ODE_T / (double)s;
  for (long t = 0; t < s; ++t) rk4_step(x, y, k, k + 4 * n, n, h);
  double out = y[n - 1];
  free(y);
  free(k);
  return out;
}

Problem *obj_setup(int size) {
  static const long Nn[] = {8, 32, 128}, S[] = {100, 1000, 4000};
  Problem *p = malloc(sizeof *p);
  p->n = Nn[size];
  p->s = S[size];
  p->x = alloc_doubles(p->n);
  Rng r;
  rng_seed(&r, 13);
  for (long i = 0; i < p->n; ++i) p->x[i] = 0.5 + rng_uniform(&r);
  return p;
}

void obj_describe(const Problem *p, char *buf, size_t n) {
  snprintf(buf, n, "n=%ld steps=%ld", p->n, p->s);
}
long obj_deriv_len(const Problem *p) { return p->n; }
/* obj_hand keeps every state of the integration and the stages of one step. */
long obj_stored_bytes(const Problem *p) { return 8L * ((p->s + 1) * p->n + 8 * p->n + 6 * p->n); }
double obj_primal(Problem *p) { return ode_primal(p->x, p->n, p->s); }

/* Adjoint of rhs: out = f(x, y). */
static void rhs_adj(const double *x, const double *y, const double *ob, double *xb, double *yb,
                    long n) {
  xb[0] += ob[0];
  for (long i = 1; i < n; ++i) {
    xb[i] += ob[i] * y[i - 1];
    yb[i - 1] += ob[i] * x[i];
  }
}

/* Reverse sweep by hand: the states at every step are stored, stages recomputed per step. */
void obj_hand(Problem *p, double *D) {
  long n = p->n, s = p->s;
  double h = ODE_T / (double)s;
  double *ys = alloc_doubles((s + 1) * n), *k = alloc_doubles(8 * n);
  double *yb = alloc_doubles(n), *kb = alloc_doubles(4 * n), *ub = alloc_doubles(n);
  for (long t = 0; t < s; ++t) {
    for (long i = 0; i < n; ++i) ys[(t + 1) * n + i] = ys[t * n + i];
    rk4_step(p->x, ys + (t + 1) * n, k, k + 4 * n, n, h);
  }
  for (long i = 0; i < n; ++i) D[i] = 0;
  yb[n - 1] = 1;
  for (long t = s - 1; t >= 0; --t) {
    double *y = ys + t * n, *u = k + 4 * n;
    double *k1 = k, *k2 = k + n, *k3 = k + 2 * n, *u2 = u + n, *u3 = u + 2 * n, *u4 = u + 3 * n;
    rhs(p->x, y, k1, n);
    for (long i = 0; i < n; ++i) u2[i] = y[i] + 0.5 * h * k1[i];
    rhs(p->x, u2, k2, n);
    for (long i = 0; i < n; ++i) u3[i] = y[i] + 0.5 * h * k2[i];
    rhs(p->x, u3, k3, n);
    for (long i = 0; i < n; ++i) u4[i] = y[i] + h * k3[i];
    double *k1b = kb, *k2b = kb + n, *k3b = kb + 2 * n, *k4b = kb + 3 * n;
    for (long i = 0; i < n; ++i) {
      k1b[i] = h / 6.0 * yb[i];
      k2b[i] = h / 3.0 * yb[i];
      k3b[i] = h / 3.0 * yb[i];
      k4b[i] = h / 6.0 * yb[i];
    }
    for (long i = 0; i < n; ++i) ub[i] = 0;
    rhs_adj(p->x, u4, k4b, D, ub, n);
    for (long i = 0; i < n; ++i) { yb[i] += ub[i]; k3b[i] += h * ub[i]; ub[i] = 0; }
    rhs_adj(p->x, u3, k3b, D, ub, n);
    for (long i = 0; i < n; ++i) { yb[i] += ub[i]; k2b[i] += 0.5 * h * ub[i]; ub[i] = 0; }
    rhs_adj(p->x, u2, k2b, D, ub, n);
    for (long i = 0; i < n; ++i) { yb[i] += ub[i]; k1b[i] += 0.5 * h * ub[i]; ub[i] = 0; }
    rhs_adj(p->x, y, k1b, D, ub, n);
    for (long i = 0; i < n; ++i) yb[i] += ub[i];
  }
  free(ys); free(k); free(yb); free(kb); free(ub);
}

static void eval(Problem *p, double *y) { y[0] = ode_primal(p->x, p->n, p->s); }
double obj_fd(Problem *p, double *D, long max_cols) {
  return fd_dense(eval, p, p->x, p->n, 1, D, max_cols);
}
