#include "lse.h"
#include "../harness/bench.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Shifting by the maximum keeps exp from overflowing; the shift cancels in value and gradient. */
double lse_primal(const double *x, long n) {
  double m = x[0];
  for (long i = 1; i < n; ++i) m = x[i] > m ? x[i] : m;
  double s = 0;
  for (long i = 0; i < n; ++i) s += exp(x[i] - m);
  return log(s) + m;
}

Problem *obj_setup(int size) {
  static const long N[] = {1000, 100000, 1000000};
  Problem *p = malloc(sizeof *p);
  p->n = N[size];
  p->x = alloc_doubles(p->n);
  Rng r;
  rng_seed(&r, 11);
  for (long i = 0; i < p->n; ++i) p->x[i] = 4.0 * rng_normal(&r);
  return p;
}

void obj_describe(const Problem *p, char *buf, size_t n) { snprintf(buf, n, "n=%ld", p->n); }
long obj_deriv_len(const Problem *p) { return p->n; }
/* obj_hand recomputes: nothing is kept. */
long obj_stored_bytes(const Problem *p) { (void)p; return 0; }
double obj_primal(Problem *p) { return lse_primal(p->x, p->n); }

void obj_hand(Problem *p, double *D) {
  double f = lse_primal(p->x, p->n);
  for (long i = 0; i < p->n; ++i) D[i] = exp(p->x[i] - f);
}

static void eval(Problem *p, double *y) { y[0] = lse_primal(p->x, p->n); }
double obj_fd(Problem *p, double *D, long max_cols) {
  return fd_dense(eval, p, p->x, p->n, 1, D, max_cols);
}
