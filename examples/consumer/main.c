/* Consumer of an installed Synthase: the gradient of a small model by reverse mode and its
 * directional derivative by forward mode, compared with the analytic derivative. Exits non-zero
 * on any mismatch. */
#include <math.h>
#include <stdio.h>
#include <synthase/enzyme.h>

/* f(x, y) = x^2 sin(y) + exp(x / y) */
static double f(double x, double y) { return x * x * sin(y) + exp(x / y); }
static double f_dx(double x, double y) { return 2 * x * sin(y) + exp(x / y) / y; }
static double f_dy(double x, double y) { return x * x * cos(y) - x / (y * y) * exp(x / y); }

/* sum of w * a[i]^2 over an array, differentiated with respect to the array */
static double energy(const double *a, int n, double w) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += w * a[i] * a[i];
  return s;
}

static int failures = 0;
static void check(const char *what, double got, double want) {
  double err = fabs(got - want) / fmax(1.0, fabs(got) + fabs(want));
  printf("%-14s %22.15f %22.15f %s\n", what, got, want, err <= 1e-12 ? "ok" : "MISMATCH");
  failures += err > 1e-12;
}

int main(void) {
  double x = 0.7, y = 1.3;
  printf("%-14s %22s %22s\n", "derivative", "synthase", "analytic");
  check("df/dx reverse", __enzyme_autodiff((void *)f, enzyme_out, x, enzyme_const, y), f_dx(x, y));
  check("df/dy reverse", __enzyme_autodiff((void *)f, enzyme_const, x, enzyme_out, y), f_dy(x, y));
  check("df/dx forward", __enzyme_fwddiff((void *)f, x, 1.0, y, 0.0), f_dx(x, y));
  check("df/dy forward", __enzyme_fwddiff((void *)f, x, 0.0, y, 1.0), f_dy(x, y));

  double a[3] = {1.0, -2.0, 0.5}, da[3] = {0, 0, 0};
  __enzyme_autodiff((void *)energy, enzyme_dup, a, da, enzyme_const, 3, enzyme_const, 1.5);
  for (int i = 0; i < 3; ++i) {
    char name[32];
    snprintf(name, sizeof name, "dE/da[%d]", i);
    check(name, da[i], 2 * 1.5 * a[i]);
  }
  printf(failures ? "consumer: %d mismatches\n" : "consumer: all derivatives match\n", failures);
  return failures != 0;
}
