/* Driver for ptr_vectors.ll: gradient and tangents of f(x) = sum_k (k+1) x[2k]^2. */
#include <math.h>
#include <stdio.h>
double grad_f(double *x, double *dx);
double tangent_f(double *x, double *dx);
int main(void) {
  double x[8], g[8] = {0};
  for (int i = 0; i < 8; ++i)
    x[i] = 0.5 + 0.25 * i;
  grad_f(x, g);
  int bad = 0;
  for (int i = 0; i < 8; ++i) {
    double want = (i % 2 == 0) ? 2.0 * (i / 2 + 1) * x[i] : 0.0;
    double e[8] = {0};
    e[i] = 1;
    double t = tangent_f(x, e);
    if (fabs(g[i] - want) > 1e-12 || fabs(t - want) > 1e-12) {
      printf("x[%d]: reverse %g forward %g want %g\n", i, g[i], t, want);
      bad = 1;
    }
  }
  return bad;
}
