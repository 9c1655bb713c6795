#include "eigen_lsq.h"
#include "../harness/bench.h"
#include <Eigen/Dense>
#include <cstdio>
#include <cstdlib>

using Eigen::Map;
using Eigen::MatrixXd;

extern "C" double eigen_lsq_primal(const double *W, const double *X, const double *Y, long m, long n, long k) {
  Map<const MatrixXd> Wm(W, n, k), Xm(X, m, n), Ym(Y, m, k);
  MatrixXd R = Xm * Wm - Ym;
  return 0.5 * R.squaredNorm();
}

extern "C" {
Problem *obj_setup(int size) {
  static const long M[] = {64, 256, 512}, N[] = {16, 64, 128}, K[] = {4, 16, 32};
  Problem *p = (Problem *)malloc(sizeof *p);
  p->m = M[size];
  p->n = N[size];
  p->k = K[size];
  p->w = alloc_doubles(p->n * p->k);
  p->x = alloc_doubles(p->m * p->n);
  p->y = alloc_doubles(p->m * p->k);
  Rng r;
  rng_seed(&r, 15);
  for (long i = 0; i < p->n * p->k; ++i) p->w[i] = rng_normal(&r) / 8;
  for (long i = 0; i < p->m * p->n; ++i) p->x[i] = rng_normal(&r);
  for (long i = 0; i < p->m * p->k; ++i) p->y[i] = rng_normal(&r);
  return p;
}

void obj_describe(const Problem *p, char *buf, size_t n) {
  snprintf(buf, n, "%ldx%ld k=%ld", p->m, p->n, p->k);
}
long obj_deriv_len(const Problem *p) { return p->n * p->k; }
double obj_primal(Problem *p) { return eigen_lsq_primal(p->w, p->x, p->y, p->m, p->n, p->k); }

/* dW = X^T (X W - Y), written as plain loops so the reference does not share Eigen's code */
void obj_hand(Problem *p, double *D) {
  long m = p->m, n = p->n, k = p->k;
  double *R = alloc_doubles(m * k);
  for (long c = 0; c < k; ++c)
    for (long i = 0; i < m; ++i) {
      double s = -p->y[c * m + i];
      for (long j = 0; j < n; ++j) s += p->x[j * m + i] * p->w[c * n + j];
      R[c * m + i] = s;
    }
  for (long c = 0; c < k; ++c)
    for (long j = 0; j < n; ++j) {
      double s = 0;
      for (long i = 0; i < m; ++i) s += p->x[j * m + i] * R[c * m + i];
      D[c * n + j] = s;
    }
  free(R);
}

static void eval(Problem *p, double *y) { y[0] = obj_primal(p); }
double obj_fd(Problem *p, double *D, long max_cols) {
  return fd_dense(eval, p, p->w, p->n * p->k, 1, D, max_cols);
}
}
