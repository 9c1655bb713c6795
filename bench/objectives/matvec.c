#include "matvec.h"
#include "../harness/bench.h"
#include <stdio.h>
#include <stdlib.h>

double matvec_primal(const double *A, const double *x, const double *b, long m, long n) {
  double s = 0;
  for (long i = 0; i < m; ++i) {
    double r = -b[i];
    for (long j = 0; j < n; ++j) r += A[i * n + j] * x[j];
    s += r * r;
  }
  return 0.5 * s;
}

Problem *obj_setup(int size) {
  static const long M[] = {32, 400, 1000}, N[] = {24, 300, 1000};
  Problem *p = malloc(sizeof *p);
  p->m = M[size];
  p->n = N[size];
  p->w = alloc_doubles(p->m * p->n + p->n);
  p->b = alloc_doubles(p->m);
  Rng r;
  rng_seed(&r, 14);
  for (long k = 0; k < p->m * p->n + p->n; ++k) p->w[k] = rng_normal(&r) / 8;
  for (long i = 0; i < p->m; ++i) p->b[i] = rng_normal(&r);
  return p;
}

void obj_describe(const Problem *p, char *buf, size_t n) {
  snprintf(buf, n, "%ldx%ld", p->m, p->n);
}
long obj_deriv_len(const Problem *p) { return p->m * p->n + p->n; }
/* obj_hand uses each residual as it is computed: nothing is kept. */
long obj_stored_bytes(const Problem *p) { (void)p; return 0; }
double obj_primal(Problem *p) {
  return matvec_primal(p->w, p->w + p->m * p->n, p->b, p->m, p->n);
}

void obj_hand(Problem *p, double *D) {
  long m = p->m, n = p->n;
  const double *A = p->w, *x = p->w + m * n;
  double *dA = D, *dx = D + m * n;
  for (long j = 0; j < n; ++j) dx[j] = 0;
  for (long i = 0; i < m; ++i) {
    double r = -p->b[i];
    for (long j = 0; j < n; ++j) r += A[i * n + j] * x[j];
    for (long j = 0; j < n; ++j) {
      dA[i * n + j] = r * x[j];
      dx[j] += r * A[i * n + j];
    }
  }
}

static void eval(Problem *p, double *y) { y[0] = obj_primal(p); }
double obj_fd(Problem *p, double *D, long max_cols) {
  return fd_dense(eval, p, p->w, p->m * p->n + p->n, 1, D, max_cols);
}
