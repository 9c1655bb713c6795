/* The second translation unit of tape_two_units.c: a reverse call site of its own. */
#include <math.h>
#ifdef __cplusplus
extern "C" {
#endif
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

/* sum_i cos(1.5 x_i) x_{i+1}: each cosine goes on the tape (a call is never recomputed). */
static double cospairs(const double *x, long n) {
  double s = 0;
  for (long i = 0; i + 1 < n; ++i)
    s += cos(x[i] * 1.5) * x[i + 1];
  return s;
}

void grad_in_b(const double *x, double *dx, long n) {
  __enzyme_autodiff((void *)cospairs, enzyme_dup, x, dx, enzyme_const, n);
}
#ifdef __cplusplus
}
#endif
