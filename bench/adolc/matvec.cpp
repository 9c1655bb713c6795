/* ADOL-C: the primal re-written over adouble and taped once; gradient() replays the tape. */
#include <adolc/adolc.h>
#include <vector>
extern "C" {
#include "../objectives/matvec.h"
#include "../harness/bench.h"
}

extern "C" {
const char *tool_name = "adolc";
void tool_prepare(Problem *p) {
  long m = p->m, n = p->n, nw = m * n + n;
  trace_on(1);
  std::vector<adouble> w(nw);
  for (long k = 0; k < nw; ++k) w[k] <<= p->w[k];
  adouble s = 0;
  for (long i = 0; i < m; ++i) {
    adouble r = -p->b[i];
    for (long j = 0; j < n; ++j) r += w[i * n + j] * w[m * n + j];
    s += r * r;
  }
  adouble y = 0.5 * s;
  double out;
  y >>= out;
  trace_off();
}
void tool_deriv(Problem *p, double *D) { gradient(1, (int)(p->m * p->n + p->n), p->w, D); }
}
