/* ADOL-C: the primal re-written over adouble and taped once; gradient() replays the tape. */
#include <adolc/adolc.h>
#include <vector>
extern "C" {
#include "../objectives/det.h"
#include "../harness/bench.h"
}

static adouble det_minor(const adouble *A, int ell, int r, unsigned used) {
  if (r == ell) return 1;
  adouble s = 0;
  double sign = 1;
  for (int c = 0; c < ell; ++c) {
    if (used & (1u << c)) continue;
    s += sign * A[r * ell + c] * det_minor(A, ell, r + 1, used | (1u << c));
    sign = -sign;
  }
  return s;
}

extern "C" {
const char *tool_name = "adolc";
void tool_prepare(Problem *p) {
  int n = p->ell * p->ell;
  trace_on(1);
  std::vector<adouble> A(n);
  for (int i = 0; i < n; ++i) A[i] <<= p->A[i];
  adouble y = det_minor(A.data(), p->ell, 0, 0);
  double out;
  y >>= out;
  trace_off();
}
void tool_deriv(Problem *p, double *D) { gradient(1, p->ell * p->ell, p->A, D); }
}
