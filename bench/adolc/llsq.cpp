/* ADOL-C: the primal re-written over adouble and taped once; gradient() replays the tape. */
#include <adolc/adolc.h>
#include <vector>
extern "C" {
#include "../objectives/llsq.h"
#include "../harness/bench.h"
}

extern "C" {
const char *tool_name = "adolc";
void tool_prepare(Problem *p) {
  trace_on(1);
  std::vector<adouble> x(p->m);
  for (long j = 0; j < p->m; ++j) x[j] <<= p->x[j];
  adouble s = 0;
  for (long i = 0; i < p->n; ++i) {
    double t = -1.0 + 2.0 * (double)i / (double)(p->n - 1), pw = 1;
    adouble fit = 0;
    for (long j = 0; j < p->m; ++j) {
      fit += x[j] * pw;
      pw *= t;
    }
    adouble r = (t > 0 ? 1.0 : t < 0 ? -1.0 : 0.0) - fit;
    s += r * r;
  }
  adouble y = 0.5 * s;
  double out;
  y >>= out;
  trace_off();
}
void tool_deriv(Problem *p, double *D) { gradient(1, (int)p->m, p->x, D); }
}
