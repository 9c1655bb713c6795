// Enzyme's whole-call flags, which may stand anywhere among the arguments: enzyme_runtime_activity
// (a duplicated pointer passed with itself as shadow is constant: nothing is accumulated into the
// primal, and it contributes no tangent), enzyme_strong_zero (Synthase's rules already give 0 for
// 0 times an infinite partial), enzyme_nocache and enzyme_not_overwritten (hints Synthase does not
// need). Every derivative is checked against its analytic value; forward and reverse agree.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t3 -lm && %t3
#include "check.h"

#ifdef __cplusplus
extern "C" {
#endif
extern int enzyme_runtime_activity, enzyme_strong_zero, enzyme_nocache, enzyme_not_overwritten;
#ifdef __cplusplus
}
#endif

#define N 5

/* sum_i a_i * sin(b_i) + a_i^2 */
static double f(const double *a, const double *b, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += a[i] * sin(b[i]) + a[i] * a[i];
  return s;
}

/* sqrt with a guard: the partial at 0 is infinite, the incoming derivative on that branch is 0 */
static double guarded_sqrt(double x) { return x > 0 ? sqrt(x) : 0.0; }

int main(void) {
  check_seed(7);
  double a[N], b[N], a0[N], b0[N];
  check_fill(a, N, -1, 1);
  check_fill(b, N, -1, 1);
  for (int i = 0; i < N; ++i)
    a0[i] = a[i], b0[i] = b[i];

  for (int mask = 0; mask < 4; ++mask) {
    /* mask bit 0: a is passed as its own shadow; bit 1: b is */
    double da[N] = {0}, db[N] = {0};
    double *sa = (mask & 1) ? a : da, *sb = (mask & 2) ? b : db;
    __enzyme_autodiff((void *)f, enzyme_runtime_activity, enzyme_dup, a, sa, enzyme_dup, b, sb,
                      enzyme_const, N);
    for (int i = 0; i < N; ++i) {
      CHECK_CLOSE(a[i], a0[i], 0, "runtime activity mask %d: a[%d] untouched", mask, i);
      CHECK_CLOSE(b[i], b0[i], 0, "runtime activity mask %d: b[%d] untouched", mask, i);
      if (!(mask & 1))
        CHECK_CLOSE(da[i], sin(b[i]) + 2 * a[i], 1e-14, "mask %d: df/da[%d]", mask, i);
      if (!(mask & 2))
        CHECK_CLOSE(db[i], a[i] * cos(b[i]), 1e-14, "mask %d: df/db[%d]", mask, i);
    }
    /* forward: a pointer passed as its own shadow contributes no tangent */
    double va[N], vb[N];
    check_fill(va, N, -1, 1);
    check_fill(vb, N, -1, 1);
    double *ta = (mask & 1) ? a : va, *tb = (mask & 2) ? b : vb;
    double t = __enzyme_fwddiff((void *)f, enzyme_dup, a, ta, enzyme_runtime_activity, enzyme_dup, b, tb,
                                enzyme_const, N);
    double want = 0;
    for (int i = 0; i < N; ++i) {
      if (!(mask & 1))
        want += (sin(b[i]) + 2 * a[i]) * va[i];
      if (!(mask & 2))
        want += a[i] * cos(b[i]) * vb[i];
    }
    CHECK_CLOSE(t, want, 1e-13, "runtime activity mask %d: forward tangent", mask);
  }

  /* the hints change nothing */
  double da[N] = {0}, db[N] = {0};
  __enzyme_autodiff((void *)f, enzyme_nocache, enzyme_dup, a, da, enzyme_not_overwritten, enzyme_dup, b, db,
                    enzyme_strong_zero, enzyme_const, N);
  for (int i = 0; i < N; ++i) {
    CHECK_CLOSE(da[i], sin(b[i]) + 2 * a[i], 1e-14, "hints: df/da[%d]", i);
    CHECK_CLOSE(db[i], a[i] * cos(b[i]), 1e-14, "hints: df/db[%d]", i);
  }

  CHECK_CLOSE(__enzyme_autodiff((void *)guarded_sqrt, enzyme_strong_zero, enzyme_out, 0.0), 0.0, 0,
              "strong zero: guarded sqrt at 0");
  CHECK_CLOSE(__enzyme_autodiff((void *)guarded_sqrt, enzyme_strong_zero, enzyme_out, 4.0), 0.25, 1e-15,
              "strong zero: guarded sqrt at 4");
  CHECK_CLOSE(__enzyme_fwddiff((void *)guarded_sqrt, enzyme_strong_zero, 0.0, 1.0), 0.0, 0,
              "strong zero: forward guarded sqrt at 0");
  return check_report();
}
