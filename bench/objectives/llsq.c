#include "llsq.h"
#include "../harness/bench.h"
#include <stdio.h>
#include <stdlib.h>

static double t_of(long i, long n) { return -1.0 + 2.0 * (double)i / (double)(n - 1); }
static double sign_of(double t) { return t > 0 ? 1.0 : t < 0 ? -1.0 : 0.0; }

double llsq_primal(const double *x, long m, long n) {
  double s = 0;
  for (long i = 0; i < n; ++i) {
    double t = t_of(i, n), pw = 1, fit = 0;
    for (long j = 0; j < m; ++j) {
      fit += x[j] * pw;
      pw *= t;
    }
    double r = sign_of(t) - fit;
    s += r * r;
  }
  return 0.5 * s;
}

Problem *obj_setup(int size) {
  static const long M[] = {8, 64, 128}, N[] = {256, 4096, 32768};
  Problem *p = malloc(sizeof *p);
  p->m = M[size];
  p->n = N[size];
  p->x = alloc_doubles(p->m);
  Rng r;
  rng_seed(&r, 12);
  for (long j = 0; j < p->m; ++j) p->x[j] = rng_normal(&r);
  return p;
}

void obj_describe(const Problem *p, char *buf, size_t n) {
  snprintf(buf, n, "m=%ld n=%ld", p->m, p->n);
}
long obj_deriv_len(const Problem *p) { return p->m; }
/* obj_hand recomputes the powers of t: nothing is kept. */
long obj_stored_bytes(const Problem *p) { (void)p; return 0; }
double obj_primal(Problem *p) { return llsq_primal(p->x, p->m, p->n); }

void obj_hand(Problem *p, double *D) {
  for (long j = 0; j < p->m; ++j) D[j] = 0;
  for (long i = 0; i < p->n; ++i) {
    double t = t_of(i, p->n), pw = 1, fit = 0;
    for (long j = 0; j < p->m; ++j) {
      fit += p->x[j] * pw;
      pw *= t;
    }
    double r = sign_of(t) - fit;
    pw = 1;
    for (long j = 0; j < p->m; ++j) {
      D[j] -= r * pw;
      pw *= t;
    }
  }
}

static void eval(Problem *p, double *y) { y[0] = llsq_primal(p->x, p->m, p->n); }
double obj_fd(Problem *p, double *D, long max_cols) {
  return fd_dense(eval, p, p->x, p->m, 1, D, max_cols);
}
