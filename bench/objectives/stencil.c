#include "stencil.h"
#include "../harness/bench.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void step(const double *u, double *v, long n) {
  for (long i = 0; i < n; ++i) {
    double l = i > 0 ? u[i - 1] : 0.0, r = i + 1 < n ? u[i + 1] : 0.0;
    v[i] = u[i] + STENCIL_C * (l - 2 * u[i] + r) + STENCIL_DT * sin(u[i]);
  }
}

double stencil_primal(const double *u0, double *u, double *v, long n, long steps) {
  for (long i = 0; i < n; ++i) u[i] = u0[i];
  for (long t = 0; t < steps; ++t) {
    step(u, v, n);
    double *tmp = u;
    u = v;
    v = tmp;
  }
  double s = 0;
  for (long i = 0; i < n; ++i) s += u[i] * u[i];
  return 0.5 * s;
}

Problem *obj_setup(int size) {
  static const long N[] = {64, 2048, 8192}, T[] = {16, 128, 256};
  Problem *p = malloc(sizeof *p);
  p->n = N[size];
  p->steps = T[size];
  p->u0 = alloc_doubles(p->n);
  p->u = alloc_doubles(p->n);
  p->v = alloc_doubles(p->n);
  p->du = alloc_doubles(p->n);
  p->dv = alloc_doubles(p->n);
  Rng r;
  rng_seed(&r, 15);
  for (long i = 0; i < p->n; ++i) p->u0[i] = rng_normal(&r);
  return p;
}

void obj_describe(const Problem *p, char *buf, size_t n) {
  snprintf(buf, n, "n=%ld steps=%ld", p->n, p->steps);
}
long obj_deriv_len(const Problem *p) { return p->n; }
/* obj_hand keeps every step's state (the stencil is nonlinear). */
long obj_stored_bytes(const Problem *p) { return 8L * ((p->steps + 1) * p->n + p->n); }
double obj_primal(Problem *p) { return stencil_primal(p->u0, p->u, p->v, p->n, p->steps); }

/* Reverse sweep by hand over all stored states. */
void obj_hand(Problem *p, double *D) {
  long n = p->n, T = p->steps;
  double *us = alloc_doubles((T + 1) * n), *b = alloc_doubles(n);
  for (long i = 0; i < n; ++i) us[i] = p->u0[i];
  for (long t = 0; t < T; ++t) step(us + t * n, us + (t + 1) * n, n);
  for (long i = 0; i < n; ++i) b[i] = us[T * n + i];
  for (long t = T - 1; t >= 0; --t) {
    const double *u = us + t * n;
    for (long i = 0; i < n; ++i) {
      double g = b[i] * (1 - 2 * STENCIL_C + STENCIL_DT * cos(u[i]));
      if (i > 0) g += STENCIL_C * b[i - 1];
      if (i + 1 < n) g += STENCIL_C * b[i + 1];
      D[i] = g;
    }
    for (long i = 0; i < n; ++i) b[i] = D[i];
  }
  free(us);
  free(b);
}

static void eval(Problem *p, double *y) { y[0] = obj_primal(p); }
double obj_fd(Problem *p, double *D, long max_cols) {
  return fd_dense(eval, p, p->u0, p->n, 1, D, max_cols);
}
