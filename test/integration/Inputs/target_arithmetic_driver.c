/* Driver for target_arithmetic.ll: x = (a0..a3, b0..b3), r_i = a_i b_i + a_i^2 and
   f = (r0 + r1) + 2 (b0 + b1) + 3 (r2 + r3) + 4 (b2 + b3) + 5 (r0 - r1) + 6 (b2 - b3), so
   df/da_i = c_i (b_i + 2 a_i) and df/db_i = c_i a_i + v_i, c = (6, -4, 3, 3), v = (2, 2, 10, -2). */
#include <math.h>
#include <stdio.h>
double grad_f(double *x, double *dx);
double tangent_f(double *x, double *dx);
int main(void) {
  double x[8] = {0.5, -1.25, 0.75, 2.0, 1.5, -0.3, 0.8, -2.2}, g[8] = {0};
  const double c[4] = {6, -4, 3, 3}, v[4] = {2, 2, 10, -2};
  grad_f(x, g);
  int bad = 0;
  for (int i = 0; i < 8; ++i) {
    double want = i < 4 ? c[i] * (x[4 + i] + 2 * x[i]) : c[i - 4] * x[i - 4] + v[i - 4];
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
