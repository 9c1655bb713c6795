#include "kmeans.h"
#include "../harness/bench.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

double kmeans_cost(const double *points, const double *centroids, long n, long k, long d) {
  double cost = 0;
  for (long i = 0; i < n; ++i) {
    const double *p = points + i * d;
    double best = INFINITY;
    for (long j = 0; j < k; ++j) {
      const double *c = centroids + j * d;
      double dist = 0;
      for (long l = 0; l < d; ++l) {
        double t = c[l] - p[l];
        dist += t * t;
      }
      best = dist < best ? dist : best;
    }
    cost += best;
  }
  return cost;
}

Problem *obj_setup(int size) {
  static const long N[] = {100, 10000, 100000}, K[] = {5, 50, 100}, D[] = {4, 8, 8};
  Problem *p = malloc(sizeof *p);
  p->n = N[size];
  p->k = K[size];
  p->d = D[size];
  p->points = alloc_doubles(p->n * p->d);
  p->centroids = alloc_doubles(p->k * p->d);
  p->work = alloc_doubles(2 * p->k * p->d);
  Rng r;
  rng_seed(&r, 23);
  for (long i = 0; i < p->n * p->d; ++i) p->points[i] = rng_normal(&r);
  /* Each centroid starts near one of the points, so every cluster is non-empty (H > 0). */
  for (long j = 0; j < p->k; ++j)
    for (long l = 0; l < p->d; ++l)
      p->centroids[j * p->d + l] = p->points[j * 7 % p->n * p->d + l] + 1e-3 * rng_normal(&r);
  return p;
}

void obj_describe(const Problem *p, char *buf, size_t n) {
  snprintf(buf, n, "n=%ld k=%ld d=%ld", p->n, p->k, p->d);
}
long obj_deriv_len(const Problem *p) { return p->k * p->d; }
/* obj_hand accumulates J and the cluster sizes; no per-point state is kept. */
long obj_stored_bytes(const Problem *p) { return 8L * (p->k * p->d + p->k); }
double obj_primal(Problem *p) { return kmeans_cost(p->points, p->centroids, p->n, p->k, p->d); }

/* Each point pulls its nearest centroid: J_j = 2 sum_{i in S_j} (C_j - P_i), H_j = 2 |S_j|.
 * Ties go to the first centroid, as in the primal's strict comparison. */
void obj_hand(Problem *p, double *D) {
  long n = p->n, k = p->k, d = p->d;
  double *J = p->work, *cnt = p->work + k * d;
  for (long q = 0; q < k * d; ++q) J[q] = 0;
  for (long j = 0; j < k; ++j) cnt[j] = 0;
  for (long i = 0; i < n; ++i) {
    const double *x = p->points + i * d;
    double best = INFINITY;
    long arg = 0;
    for (long j = 0; j < k; ++j) {
      const double *c = p->centroids + j * d;
      double dist = 0;
      for (long l = 0; l < d; ++l) dist += (c[l] - x[l]) * (c[l] - x[l]);
      if (dist < best) { best = dist; arg = j; }
    }
    for (long l = 0; l < d; ++l) J[arg * d + l] += 2 * (p->centroids[arg * d + l] - x[l]);
    cnt[arg] += 1;
  }
  for (long j = 0; j < k; ++j)
    for (long l = 0; l < d; ++l) D[j * d + l] = J[j * d + l] / (2 * cnt[j]);
}

/* The cost is piecewise quadratic: along one coordinate it is exactly quadratic between the
 * steps where some point changes its nearest centroid, so central differences give J and the
 * second difference H exactly there (up to rounding).  Differences are taken point by point, so
 * that the large sum does not cancel, and the step shrinks until no point changes its centroid. */
static long nearest(const double *x, const double *C, long k, long d, double *best) {
  long arg = 0;
  *best = INFINITY;
  for (long j = 0; j < k; ++j) {
    double dist = 0;
    for (long l = 0; l < d; ++l) dist += (C[j * d + l] - x[l]) * (C[j * d + l] - x[l]);
    if (dist < *best) { *best = dist; arg = j; }
  }
  return arg;
}

/* Steps s1 h and s2 h along coordinate q: the sums of each point's change of cost, or 0 when
 * some point changes its centroid within the steps. */
static int fd_steps(Problem *p, long q, double h, double s1, double s2, double *u1, double *u2) {
  double *C = p->centroids, x0 = C[q];
  *u1 = *u2 = 0;
  for (long i = 0; i < p->n; ++i) {
    const double *x = p->points + i * p->d;
    double m0, m1, m2;
    long a0 = nearest(x, C, p->k, p->d, &m0);
    C[q] = x0 + s1 * h;
    long a1 = nearest(x, C, p->k, p->d, &m1);
    C[q] = x0 + s2 * h;
    long a2 = nearest(x, C, p->k, p->d, &m2);
    C[q] = x0;
    if (a1 != a0 || a2 != a0) return 0;
    *u1 += m1 - m0;
    *u2 += m2 - m0;
  }
  return 1;
}

/* Central differences, or one-sided second-order ones (exact for a quadratic too) when a point
 * changes its centroid on one side only. */
static int fd_coordinate(Problem *p, long q, double h, double *dir) {
  double u1, u2;
  if (fd_steps(p, q, h, 1, -1, &u1, &u2)) {
    *dir = ((u1 - u2) / (2 * h)) / ((u1 + u2) / (h * h));
    return 1;
  }
  for (double s = 1; s >= -1; s -= 2)
    if (fd_steps(p, q, h, s, 2 * s, &u1, &u2)) {
      *dir = (s * (4 * u1 - u2) / (2 * h)) / ((u2 - 2 * u1) / (h * h));
      return 1;
    }
  return 0;
}

double obj_fd(Problem *p, double *D, long max_cols) {
  long len = p->k * p->d, stride = (len + max_cols - 1) / max_cols, done = 0;
  if (stride < 1) stride = 1;
  for (long q = 0; q < len; q += stride, ++done) {
    double h = 1e-2 * fmax(1.0, fabs(p->centroids[q]));
    for (int tries = 0; tries < 8 && !fd_coordinate(p, q, h, &D[q]); ++tries) h /= 8;
  }
  return (double)done / (double)len;
}
