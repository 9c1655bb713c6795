#include <stdio.h>
extern int enzyme_dup;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
double outer(const double *x);
int main(void) {
  double x[2] = {1, 2}, dx[2] = {0, 0}, v[2] = {1, 0};
  __enzyme_autodiff((void *)outer, enzyme_dup, x, dx);
  double t = __enzyme_fwddiff((void *)outer, enzyme_dup, x, v);
  /* d/dx0 (sum2(x) x0) = 7 x0 + sum2(x) = 10, d/dx1 = 7 x0 = 7 */
  int ok = dx[0] == 10 && dx[1] == 7 && t == 10;
  printf("lto custom derivative: %s (%g %g %g)\n", ok ? "all passed" : "FAIL", dx[0], dx[1], t);
  return !ok;
}
