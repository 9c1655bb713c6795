#include "gmm.h"
#include "../harness/bench.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static double logsumexp(const double *v, int n) {
  double mx = v[0];
  for (int i = 1; i < n; ++i) mx = v[i] > mx ? v[i] : mx;
  double s = 0;
  for (int i = 0; i < n; ++i) s += exp(v[i] - mx);
  return log(s) + mx;
}

/* out = Q xc, Q = diag(exp(logdiag)) + strict lower triangle L stored by columns. */
static void q_times(int d, const double *icf, const double *xc, double *out) {
  const double *L = icf + d;
  for (int i = 0; i < d; ++i) out[i] = exp(icf[i]) * xc[i];
  int idx = 0;
  for (int c = 0; c < d; ++c)
    for (int r = c + 1; r < d; ++r) out[r] += L[idx++] * xc[c];
}

static double log_gamma_distrib(double a, int p) {
  double s = 0.25 * p * (p - 1) * log(M_PI);
  for (int j = 1; j <= p; ++j) s += lgamma(a + 0.5 * (1 - j));
  return s;
}

double gmm_primal(int d, int k, int n, const double *alphas, const double *means,
                  const double *icf, const double *x, double gamma, int m) {
  int tri = d * (d + 1) / 2;
  double *xc = malloc(sizeof(double) * (size_t)d), *qxc = malloc(sizeof(double) * (size_t)d);
  double *main_term = malloc(sizeof(double) * (size_t)k);
  double *sum_qs = malloc(sizeof(double) * (size_t)k);
  for (int c = 0; c < k; ++c) {
    sum_qs[c] = 0;
    for (int j = 0; j < d; ++j) sum_qs[c] += icf[c * tri + j];
  }
  double slse = 0;
  for (int i = 0; i < n; ++i) {
    for (int c = 0; c < k; ++c) {
      for (int j = 0; j < d; ++j) xc[j] = x[i * d + j] - means[c * d + j];
      q_times(d, icf + c * tri, xc, qxc);
      double sq = 0;
      for (int j = 0; j < d; ++j) sq += qxc[j] * qxc[j];
      main_term[c] = alphas[c] + sum_qs[c] - 0.5 * sq;
    }
    slse += logsumexp(main_term, k);
  }
  /* Wishart prior on each component's Q. */
  double prior = 0;
  for (int c = 0; c < k; ++c) {
    double fro = 0;
    for (int j = 0; j < d; ++j) fro += exp(2 * icf[c * tri + j]);
    for (int j = d; j < tri; ++j) fro += icf[c * tri + j] * icf[c * tri + j];
    prior += 0.5 * gamma * gamma * fro - m * sum_qs[c];
  }
  int nn = d + m + 1;
  double C = nn * d * (log(gamma) - 0.5 * log(2.0)) - log_gamma_distrib(0.5 * nn, d);
  double out = -n * d * 0.5 * log(2 * M_PI) + slse - n * logsumexp(alphas, k) + prior - k * C;
  free(xc);
  free(qxc);
  free(main_term);
  free(sum_qs);
  return out;
}

Problem *obj_setup(int size) {
  static const int D[] = {2, 10, 10}, K[] = {5, 25, 50}, N[] = {200, 1000, 2000};
  Problem *p = malloc(sizeof *p);
  p->d = D[size];
  p->k = K[size];
  p->n = N[size];
  p->m = 0;
  p->gamma = 1.0;
  int tri = p->d * (p->d + 1) / 2;
  long np = (long)p->k * (1 + p->d + tri);
  p->params = alloc_doubles(np);
  p->x = alloc_doubles((long)p->n * p->d);
  Rng r;
  rng_seed(&r, 16);
  for (long i = 0; i < np; ++i) p->params[i] = rng_normal(&r) * (i < p->k ? 1.0 : 0.3);
  for (long i = 0; i < (long)p->n * p->d; ++i) p->x[i] = rng_normal(&r);
  return p;
}

void obj_describe(const Problem *p, char *buf, size_t n) {
  snprintf(buf, n, "d=%d K=%d n=%d", p->d, p->k, p->n);
}
long obj_deriv_len(const Problem *p) { return (long)p->k * (1 + p->d + p->d * (p->d + 1) / 2); }
/* What obj_hand keeps from its forward part: per-component centred point, Q times it, and
 * their scalars, reused point after point. */
long obj_stored_bytes(const Problem *p) { return 8L * (3L * p->k * p->d + 2L * p->k); }

#define GMM_ARGS(p, w)                                                                            \
  (p)->d, (p)->k, (p)->n, (w), (w) + (p)->k, (w) + (p)->k + (p)->k * (p)->d, (p)->x, (p)->gamma,  \
      (p)->m
double obj_primal(Problem *p) { return gmm_primal(GMM_ARGS(p, p->params)); }

/* Each point's log-sum-exp term spreads over the components with softmax weights. */
void obj_hand(Problem *p, double *D) {
  int d = p->d, k = p->k, n = p->n, tri = d * (d + 1) / 2;
  const double *alphas = p->params, *means = alphas + k, *icf = means + k * d;
  double *dal = D, *dmu = D + k, *dicf = dmu + k * d;
  for (long i = 0; i < obj_deriv_len(p); ++i) D[i] = 0;
  double *xc = alloc_doubles((long)k * d), *qxc = alloc_doubles((long)k * d);
  double *mt = alloc_doubles(k), *qd = alloc_doubles((long)k * d), *sum_qs = alloc_doubles(k);
  for (int c = 0; c < k; ++c)
    for (int j = 0; j < d; ++j) {
      qd[c * d + j] = exp(icf[c * tri + j]);
      sum_qs[c] += icf[c * tri + j];
    }
  for (int i = 0; i < n; ++i) {
    double mx = -INFINITY;
    for (int c = 0; c < k; ++c) {
      double *xcc = xc + c * d, *q = qxc + c * d;
      for (int j = 0; j < d; ++j) xcc[j] = p->x[i * d + j] - means[c * d + j];
      q_times(d, icf + c * tri, xcc, q);
      double sq = 0;
      for (int j = 0; j < d; ++j) sq += q[j] * q[j];
      mt[c] = alphas[c] + sum_qs[c] - 0.5 * sq;
      mx = mt[c] > mx ? mt[c] : mx;
    }
    double s = 0;
    for (int c = 0; c < k; ++c) s += (mt[c] = exp(mt[c] - mx));
    for (int c = 0; c < k; ++c) {
      double w = mt[c] / s, *xcc = xc + c * d, *q = qxc + c * d;
      const double *L = icf + c * tri + d;
      double *dL = dicf + c * tri + d;
      dal[c] += w;
      for (int j = 0; j < d; ++j) {
        dicf[c * tri + j] += w * (1 - q[j] * xcc[j] * qd[c * d + j]);
        dmu[c * d + j] += w * qd[c * d + j] * q[j];
      }
      int idx = 0;
      for (int cc = 0; cc < d; ++cc)
        for (int r = cc + 1; r < d; ++r, ++idx) {
          dL[idx] -= w * q[r] * xcc[cc];
          dmu[c * d + cc] += w * L[idx] * q[r];
        }
    }
  }
  double mx = alphas[0], s = 0;
  for (int c = 1; c < k; ++c) mx = alphas[c] > mx ? alphas[c] : mx;
  for (int c = 0; c < k; ++c) s += exp(alphas[c] - mx);
  double g2 = p->gamma * p->gamma;
  for (int c = 0; c < k; ++c) {
    dal[c] -= n * exp(alphas[c] - mx) / s;
    for (int j = 0; j < d; ++j) dicf[c * tri + j] += g2 * qd[c * d + j] * qd[c * d + j] - p->m;
    for (int j = d; j < tri; ++j) dicf[c * tri + j] += g2 * icf[c * tri + j];
  }
  free(xc); free(qxc); free(mt); free(qd); free(sum_qs);
}

static void eval(Problem *p, double *y) { y[0] = obj_primal(p); }
double obj_fd(Problem *p, double *D, long max_cols) {
  return fd_dense(eval, p, p->params, obj_deriv_len(p), 1, D, max_cols);
}
