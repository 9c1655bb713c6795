/* ADOL-C: the primal re-written over adouble and taped once; gradient() replays the tape. */
#include <adolc/adolc.h>
#include <vector>
extern "C" {
#include "../objectives/lstm.h"
#include "../harness/bench.h"
}

typedef std::vector<adouble> V;

static adouble sigmoid(const adouble &x) { return 1.0 / (1.0 + exp(-x)); }

static adouble lstm(const Problem *p, const adouble *mp, const adouble *ep) {
  int l = p->l, b = p->b;
  V s(2 * l * b), x2(b), y(b);
  for (int i = 0; i < 2 * l * b; ++i) s[i] = p->state[i];
  adouble total = 0;
  for (int t = 0; t < p->c - 1; ++t) {
    for (int i = 0; i < b; ++i) x2[i] = p->seq[t * b + i] * ep[i];
    adouble *in = x2.data();
    for (int j = 0; j < l; ++j) {
      const adouble *w = mp + 2 * j * 4 * b, *bias = w + 4 * b;
      adouble *h = s.data() + 2 * j * b, *cl = h + b;
      for (int i = 0; i < b; ++i) {
        adouble f = sigmoid(in[i] * w[i] + bias[i]);
        adouble ig = sigmoid(h[i] * w[b + i] + bias[b + i]);
        adouble o = sigmoid(in[i] * w[2 * b + i] + bias[2 * b + i]);
        adouble ch = tanh(h[i] * w[3 * b + i] + bias[3 * b + i]);
        cl[i] = cl[i] * f + ig * ch;
        h[i] = o * tanh(cl[i]);
      }
      in = h;
    }
    adouble mx = in[0] * ep[b] + ep[2 * b];
    for (int i = 0; i < b; ++i) {
      y[i] = in[i] * ep[b + i] + ep[2 * b + i];
      mx = fmax(mx, y[i]);
    }
    adouble se = 0;
    for (int i = 0; i < b; ++i) se += exp(y[i] - mx);
    adouble lse = log(se) + mx;
    for (int i = 0; i < b; ++i) total += p->seq[(t + 1) * b + i] * (y[i] - lse);
  }
  return -total / ((double)(p->c - 1) * b);
}

extern "C" {
const char *tool_name = "adolc";
void tool_prepare(Problem *p) {
  long np = obj_deriv_len(p);
  trace_on(1);
  V w(np);
  for (long i = 0; i < np; ++i) w[i] <<= p->params[i];
  adouble y = lstm(p, w.data(), w.data() + 8L * p->l * p->b);
  double out;
  y >>= out;
  trace_off();
}
void tool_deriv(Problem *p, double *D) { gradient(1, (int)obj_deriv_len(p), p->params, D); }
}
