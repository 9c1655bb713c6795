/* Driver for deep_integer_moves.ll: d/dv_k of sum_k (k + 1) v_k^2 is 2 (k + 1) v_k, in
   reverse and forward mode, tolerance 1e-12. */
#include <math.h>
#include <stdio.h>
double grad_deep(double *v, double *dv, const char *flags, const long *ints, long n);
double tangent_deep(double *v, double *dv, const char *flags, const long *ints, long n);

int main(void) {
  enum { N = 24 };
  int bad = 0;
  double v[N], dv[N] = {0};
  char flags[40] = {0};
  long ints[40];
  for (int k = 0; k < 40; ++k)
    ints[k] = 1000 + k;
  for (int i = 0; i < N; ++i)
    v[i] = 0.3 + 0.1 * i;
  grad_deep(v, dv, flags, ints, N);
  for (int i = 0; i < N; ++i) {
    double want = 2 * (i + 1) * v[i], e[N] = {0};
    e[i] = 1;
    double fwd = tangent_deep(v, e, flags, ints, N);
    if (fabs(dv[i] - want) > 1e-12 * (1 + fabs(want)) || fabs(fwd - want) > 1e-12 * (1 + fabs(want))) {
      printf("v[%d]: reverse %.17g forward %.17g want %.17g\n", i, dv[i], fwd, want);
      bad = 1;
    }
  }
  return bad;
}
