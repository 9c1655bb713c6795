/* Shared by the tape tests (tape_recompute.c, tape_running_select.c, lit/tape/running_select.c):
 * k-means' cost, whose nearest centroid is a running minimum, and its analytic gradient; and a
 * running minimum the running-select rule must leave alone. */
#ifndef SYNTHASE_TEST_TAPE_KMEANS_H
#define SYNTHASE_TEST_TAPE_KMEANS_H

static double kmeans(const double *pts, const double *cen, long n, long k, long d) {
  double cost = 0;
  for (long i = 0; i < n; ++i) {
    double best = __builtin_inf();
    for (long j = 0; j < k; ++j) {
      double dist = 0;
      for (long l = 0; l < d; ++l) {
        double t = cen[j * d + l] - pts[i * d + l];
        dist += t * t;
      }
      best = dist < best ? dist : best;
    }
    cost += best;
  }
  return cost;
}

/* Each point pulls its nearest centroid (the first one on ties, as the strict comparison). */
static inline void kmeans_gradient(const double *pts, const double *cen, long n, long k, long d, double *g) {
  for (long q = 0; q < k * d; ++q)
    g[q] = 0;
  for (long i = 0; i < n; ++i) {
    double best = __builtin_inf();
    long arg = 0;
    for (long j = 0; j < k; ++j) {
      double dist = 0;
      for (long l = 0; l < d; ++l)
        dist += (cen[j * d + l] - pts[i * d + l]) * (cen[j * d + l] - pts[i * d + l]);
      if (dist < best) {
        best = dist;
        arg = j;
      }
    }
    for (long l = 0; l < d; ++l)
      g[arg * d + l] += 2 * (cen[arg * d + l] - pts[i * d + l]);
  }
}

/* Not a running select: the running value is multiplied inside the loop, so its adjoint does not
 * only pass along the chain. */
static inline double used_inside(const double *w, long n) {
  double s = 0, best = w[0];
  for (long j = 1; j < n; ++j) {
    s += best * w[j];
    best = w[j] < best ? w[j] : best;
  }
  return s + best;
}

#endif
