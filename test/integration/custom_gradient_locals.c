// A registered reverse function reads the memory behind its pointer arguments when the reverse
// sweep runs, after the augmented sweep's frame is gone. Locals whose address reaches it (directly,
// or through a helper that passes the pointer on) must still hold their values then; at -O0 they
// used to be dead stack slots (a silent wrong gradient). Checked against central differences; the
// registered gradient is the exact one, so any stale read shows.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O1 -I%inputs %s -o %t1 -lm && %t1
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -x c++ -O0 -I%inputs %s -o %t3 -lm && %t3
#include "check.h"

#ifdef __cplusplus
extern "C" {
#endif
__attribute__((noinline)) double cdot(const double *a, const double *b, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}
double aug_cdot(const double *a, const double *da, const double *b, const double *db, int n, int dn) {
  (void)da, (void)db, (void)dn;
  return cdot(a, b, n);
}
void rev_cdot(const double *a, double *da, const double *b, double *db, int n, int dn, double dr) {
  (void)dn;
  for (int i = 0; i < n; i++) {
    if (da)
      da[i] += dr * b[i];
    if (db)
      db[i] += dr * a[i];
  }
}
#ifdef __cplusplus
}
#endif
__attribute__((used)) void *__enzyme_register_gradient_cdot[] = {(void *)cdot, (void *)aug_cdot, (void *)rev_cdot};

/* the local w is computed from v, then read by the registered reverse function */
static double direct(const double *v) {
  double w[3] = {1.5, 2.5, -3.0};
  for (int i = 0; i < 3; i++)
    w[i] *= v[2];
  return v[1] * cdot(v, w, 3);
}

/* the local reaches cdot through a helper that is not inlined */
__attribute__((noinline)) static double through(const double *a, const double *b) { return cdot(a, b, 3) * a[0]; }
static double nested(const double *v) {
  double w[3], u[4] = {0.5, 0.25, 0.125, 2.0};
  for (int i = 0; i < 3; i++)
    w[i] = sin(v[i]) + u[i];
  return through(w, v) + u[3] * w[1];
}

typedef double (*Objective)(const double *);
static void check(const char *name, Objective f) {
  double v[3] = {0.3, 0.7, 1.1}, dv[3] = {0};
  __enzyme_autodiff((void *)f, enzyme_dup, v, dv);
  for (int i = 0; i < 3; i++) {
    double h = 1e-6, vp[3] = {v[0], v[1], v[2]}, vm[3] = {v[0], v[1], v[2]};
    vp[i] += h;
    vm[i] -= h;
    CHECK_CLOSE(dv[i], (f(vp) - f(vm)) / (2 * h), 1e-7, "%s: d/dv%d", name, i);
  }
}

int main(void) {
  check("direct", direct);
  check("nested", nested);
  return check_report();
}
