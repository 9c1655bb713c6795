/* ADOL-C: the primal re-written over adouble and taped once; gradient() replays the tape. */
#include <adolc/adolc.h>
#include <vector>
extern "C" {
#include "../objectives/lse.h"
#include "../harness/bench.h"
}

static adouble lse(const adouble *x, long n) {
  adouble m = x[0];
  for (long i = 1; i < n; ++i) m = fmax(m, x[i]);
  adouble s = 0;
  for (long i = 0; i < n; ++i) s += exp(x[i] - m);
  return log(s) + m;
}

extern "C" {
const char *tool_name = "adolc";
void tool_prepare(Problem *p) {
  trace_on(1);
  std::vector<adouble> x(p->n);
  for (long i = 0; i < p->n; ++i) x[i] <<= p->x[i];
  adouble y = lse(x.data(), p->n);
  double out;
  y >>= out;
  trace_off();
}
void tool_deriv(Problem *p, double *D) { gradient(1, (int)p->n, p->x, D); }
}
