/* ADOL-C: the primal re-written over adouble and taped once; gradient() replays the tape. */
#include <adolc/adolc.h>
#include <vector>
extern "C" {
#include "../objectives/ode.h"
#include "../harness/bench.h"
}

typedef std::vector<adouble> V;

static void rhs(const V &x, const V &y, V &out) {
  out[0] = x[0];
  for (size_t i = 1; i < y.size(); ++i) out[i] = x[i] * y[i - 1];
}

extern "C" {
const char *tool_name = "adolc";
void tool_prepare(Problem *p) {
  long n = p->n;
  double h = ODE_T / (double)p->s;
  trace_on(1);
  V x(n), y(n), k1(n), k2(n), k3(n), k4(n), u(n);
  for (long i = 0; i < n; ++i) x[i] <<= p->x[i];
  for (long i = 0; i < n; ++i) y[i] = 0;
  for (long t = 0; t < p->s; ++t) {
    rhs(x, y, k1);
    for (long i = 0; i < n; ++i) u[i] = y[i] + 0.5 * h * k1[i];
    rhs(x, u, k2);
    for (long i = 0; i < n; ++i) u[i] = y[i] + 0.5 * h * k2[i];
    rhs(x, u, k3);
    for (long i = 0; i < n; ++i) u[i] = y[i] + h * k3[i];
    rhs(x, u, k4);
    for (long i = 0; i < n; ++i) y[i] += h / 6.0 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
  }
  double out;
  y[n - 1] >>= out;
  trace_off();
}
void tool_deriv(Problem *p, double *D) { gradient(1, (int)p->n, p->x, D); }
}
