#include "det.h"
#include "../harness/bench.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* The minor of rows r.. and the columns not in `used`, expanded along row r. */
static double det_minor(const double *A, int ell, int r, unsigned used) {
  if (r == ell) return 1;
  double s = 0, sign = 1;
  for (int c = 0; c < ell; ++c) {
    if (used & (1u << c)) continue;
    s += sign * A[r * ell + c] * det_minor(A, ell, r + 1, used | (1u << c));
    sign = -sign;
  }
  return s;
}

double det_primal(const double *A, int ell) { return det_minor(A, ell, 0, 0); }

Problem *obj_setup(int size) {
  static const int L[] = {5, 8, 10};
  Problem *p = malloc(sizeof *p);
  p->ell = L[size];
  p->A = alloc_doubles((long)p->ell * p->ell);
  Rng r;
  rng_seed(&r, 29);
  for (int i = 0; i < p->ell * p->ell; ++i) p->A[i] = rng_normal(&r);
  return p;
}

void obj_describe(const Problem *p, char *buf, size_t n) { snprintf(buf, n, "ell=%d", p->ell); }
long obj_deriv_len(const Problem *p) { return (long)p->ell * p->ell; }
/* obj_hand's recursion holds one seed per level: nothing is stored for a later pass. */
long obj_stored_bytes(const Problem *p) { (void)p; return 0; }
double obj_primal(Problem *p) { return det_primal(p->A, p->ell); }

/* One pass of the same recursion: a minor's seed is known on the way down (the seed above times
 * the sign and the entry), and its value on the way up gives the entry's adjoint. */
static double det_minor_adj(const double *A, double *dA, int ell, int r, unsigned used,
                            double seed) {
  if (r == ell) return 1;
  double s = 0, sign = 1;
  for (int c = 0; c < ell; ++c) {
    if (used & (1u << c)) continue;
    double a = sign * A[r * ell + c];
    double m = det_minor_adj(A, dA, ell, r + 1, used | (1u << c), seed * a);
    dA[r * ell + c] += seed * sign * m;
    s += a * m;
    sign = -sign;
  }
  return s;
}

void obj_hand(Problem *p, double *D) {
  for (int i = 0; i < p->ell * p->ell; ++i) D[i] = 0;
  det_minor_adj(p->A, D, p->ell, 0, 0, 1.0);
}

static void eval(Problem *p, double *y) { y[0] = det_primal(p->A, p->ell); }
double obj_fd(Problem *p, double *D, long max_cols) {
  return fd_dense(eval, p, p->A, (long)p->ell * p->ell, 1, D, max_cols);
}
