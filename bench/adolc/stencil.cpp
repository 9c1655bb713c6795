/* ADOL-C: the primal re-written over adouble and taped once; gradient() replays the tape. */
#include <adolc/adolc.h>
#include <vector>
extern "C" {
#include "../objectives/stencil.h"
#include "../harness/bench.h"
}

extern "C" {
const char *tool_name = "adolc";
void tool_prepare(Problem *p) {
  long n = p->n;
  trace_on(1);
  std::vector<adouble> u(n), v(n);
  for (long i = 0; i < n; ++i) u[i] <<= p->u0[i];
  for (long t = 0; t < p->steps; ++t) {
    for (long i = 0; i < n; ++i) {
      adouble l = 0, r = 0;
      if (i > 0) l = u[i - 1];
      if (i + 1 < n) r = u[i + 1];
      v[i] = u[i] + STENCIL_C * (l - 2 * u[i] + r) + STENCIL_DT * sin(u[i]);
    }
    u.swap(v);
  }
  adouble s = 0;
  for (long i = 0; i < n; ++i) s += u[i] * u[i];
  adouble y = 0.5 * s;
  double out;
  y >>= out;
  trace_off();
}
void tool_deriv(Problem *p, double *D) { gradient(1, (int)p->n, p->u0, D); }
}
