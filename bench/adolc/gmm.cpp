/* ADOL-C: the primal re-written over adouble and taped once; gradient() replays the tape. */
#include <adolc/adolc.h>
#include <cmath>
#include <vector>
extern "C" {
#include "../objectives/gmm.h"
#include "../harness/bench.h"
}

typedef std::vector<adouble> V;

static adouble logsumexp(const adouble *v, int n) {
  adouble mx = v[0];
  for (int i = 1; i < n; ++i) mx = fmax(mx, v[i]);
  adouble s = 0;
  for (int i = 0; i < n; ++i) s += exp(v[i] - mx);
  return log(s) + mx;
}

static adouble gmm(const Problem *p, const adouble *alphas, const adouble *means,
                   const adouble *icf) {
  int d = p->d, k = p->k, n = p->n, m = p->m, tri = d * (d + 1) / 2;
  V xc(d), q(d), mt(k), sum_qs(k);
  for (int c = 0; c < k; ++c) {
    sum_qs[c] = 0;
    for (int j = 0; j < d; ++j) sum_qs[c] += icf[c * tri + j];
  }
  adouble slse = 0;
  for (int i = 0; i < n; ++i) {
    for (int c = 0; c < k; ++c) {
      const adouble *ic = icf + c * tri, *L = ic + d;
      for (int j = 0; j < d; ++j) xc[j] = p->x[i * d + j] - means[c * d + j];
      for (int j = 0; j < d; ++j) q[j] = exp(ic[j]) * xc[j];
      int idx = 0;
      for (int cc = 0; cc < d; ++cc)
        for (int r = cc + 1; r < d; ++r) q[r] += L[idx++] * xc[cc];
      adouble sq = 0;
      for (int j = 0; j < d; ++j) sq += q[j] * q[j];
      mt[c] = alphas[c] + sum_qs[c] - 0.5 * sq;
    }
    slse += logsumexp(mt.data(), k);
  }
  adouble prior = 0;
  for (int c = 0; c < k; ++c) {
    adouble fro = 0;
    for (int j = 0; j < d; ++j) fro += exp(2 * icf[c * tri + j]);
    for (int j = d; j < tri; ++j) fro += icf[c * tri + j] * icf[c * tri + j];
    prior += 0.5 * p->gamma * p->gamma * fro - m * sum_qs[c];
  }
  int nn = d + m + 1;
  double lgd = 0.25 * d * (d - 1) * std::log(M_PI);
  for (int j = 1; j <= d; ++j) lgd += std::lgamma(0.5 * nn + 0.5 * (1 - j));
  double C = nn * d * (std::log(p->gamma) - 0.5 * std::log(2.0)) - lgd;
  return -n * d * 0.5 * std::log(2 * M_PI) + slse - n * logsumexp(alphas, k) + prior - k * C;
}

extern "C" {
const char *tool_name = "adolc";
void tool_prepare(Problem *p) {
  long np = obj_deriv_len(p);
  trace_on(1);
  V w(np);
  for (long i = 0; i < np; ++i) w[i] <<= p->params[i];
  adouble y = gmm(p, w.data(), w.data() + p->k, w.data() + p->k + p->k * p->d);
  double out;
  y >>= out;
  trace_off();
}
void tool_deriv(Problem *p, double *D) { gradient(1, (int)obj_deriv_len(p), p->params, D); }
}
