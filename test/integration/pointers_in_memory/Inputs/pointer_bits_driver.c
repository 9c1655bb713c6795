/* Driver for pointer_bits.ll: gradient and tangents of f(x) = sum_i (i+1) x[i]^2 + x[1]^3. */
#include <math.h>
#include <stdio.h>
double grad_f(double *x, double *dx);
double tangent_f(double *x, double *dx);
int main(void) {
  double x[4] = {0.5, -1.25, 0.75, 2.0}, g[4] = {0};
  grad_f(x, g);
  int bad = 0;
  for (int i = 0; i < 4; ++i) {
    double want = 2.0 * (i + 1) * x[i] + (i == 1 ? 3.0 * x[1] * x[1] : 0.0);
    double e[4] = {0};
    e[i] = 1;
    double t = tangent_f(x, e);
    if (fabs(g[i] - want) > 1e-12 || fabs(t - want) > 1e-12) {
      printf("x[%d]: reverse %g forward %g want %g\n", i, g[i], t, want);
      bad = 1;
    }
  }
  return bad;
}
