// Ties in max/min reductions follow the source's comparison when the optimizer turns it into
// llvm.maxnum/minnum (fast-math, or select canonicalisation): `r = r > v ? r : v` keeps the last
// maximal element, `if (v > m) m = v` the first, and the derivative goes to that element. maxnum
// and minnum give a tie to their second operand, which both idioms put there (Enzyme's vecmax
// test gave the adjoint to the wrong element of a tie under -ffast-math). Reverse against the
// analytic derivative (one-hot at the element the source picks), forward against reverse.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O1 -ffast-math -I%inputs %s -o %t1 -lm && %t1
// RUN: %synthase-cc -O2 -ffast-math -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O2 -I%inputs %s -o %t3 -lm && %t3
#include "check.h"
#include <string.h>

__attribute__((noinline)) static double last_max(const double *v, int n) {
  double r = v[0];
  for (int i = 1; i < n; i++)
    r = (r > v[i]) ? r : v[i];
  return r;
}
__attribute__((noinline)) static double first_max(const double *v, int n) {
  double m = v[0];
  for (int i = 1; i < n; i++)
    if (v[i] > m)
      m = v[i];
  return m;
}
__attribute__((noinline)) static double last_min(const double *v, int n) {
  double r = v[0];
  for (int i = 1; i < n; i++)
    r = (r < v[i]) ? r : v[i];
  return r;
}
__attribute__((noinline)) static double first_min(const double *v, int n) {
  double m = v[0];
  for (int i = 1; i < n; i++)
    if (v[i] < m)
      m = v[i];
  return m;
}

typedef double (*Fn)(const double *, int);

static void check_pick(Fn f, const char *name, const double *v, int n, int want) {
  double d[8], t[8];
  memset(d, 0, sizeof d);
  __enzyme_autodiff((void *)f, enzyme_dup, v, d, enzyme_const, n);
  for (int i = 0; i < n; i++) {
    CHECK_CLOSE(d[i], i == want ? 1.0 : 0.0, 0, "%s reverse d[%d]", name, i);
    memset(t, 0, sizeof t);
    t[i] = 1;
    CHECK_CLOSE(__enzyme_fwddiff((void *)f, enzyme_dup, v, t, enzyme_const, n), d[i], 0, "%s forward d[%d]", name, i);
  }
}

int main(void) {
  const double hi[5] = {-1., 2., -0.2, 2., 1.}; /* a tie at the maximum: elements 1 and 3 */
  const double lo[5] = {3., -2., 0.5, -2., 1.}; /* a tie at the minimum: elements 1 and 3 */
  check_pick(last_max, "r > v ? r : v", hi, 5, 3);
  check_pick(first_max, "if (v > m) m = v", hi, 5, 1);
  check_pick(last_min, "r < v ? r : v", lo, 5, 3);
  check_pick(first_min, "if (v < m) m = v", lo, 5, 1);
  return check_report();
}
