/* ADOL-C: the cost re-written over adouble and taped once at the evaluation point (the nearest
 * centroid of each point is decided while taping, as the replay is at the same point);
 * gradient() gives J and hess_vec() along (1, ..., 1) the Hessian's diagonal. */
#include <adolc/adolc.h>
#include <vector>
extern "C" {
#include "../objectives/kmeans.h"
#include "../harness/bench.h"
}

static std::vector<double> ones, H;

extern "C" {
const char *tool_name = "adolc";
void tool_prepare(Problem *p) {
  long n = p->n, k = p->k, d = p->d;
  trace_on(1);
  std::vector<adouble> C(k * d);
  for (long q = 0; q < k * d; ++q) C[q] <<= p->centroids[q];
  adouble cost = 0;
  for (long i = 0; i < n; ++i) {
    adouble best;
    for (long j = 0; j < k; ++j) {
      adouble dist = 0;
      for (long l = 0; l < d; ++l) {
        adouble t = C[j * d + l] - p->points[i * d + l];
        dist += t * t;
      }
      if (j == 0) best = dist;
      else best = fmin(best, dist);
    }
    cost += best;
  }
  double out;
  cost >>= out;
  trace_off();
  ones.assign(k * d, 1.0);
  H.assign(k * d, 0.0);
}
void tool_deriv(Problem *p, double *D) {
  int len = (int)(p->k * p->d);
  gradient(1, len, p->centroids, D);
  hess_vec(1, len, p->centroids, ones.data(), H.data());
  for (int q = 0; q < len; ++q) D[q] /= H[q];
}
}
