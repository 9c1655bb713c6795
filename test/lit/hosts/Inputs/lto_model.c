/* The model half of a two-file program: the functions to differentiate live here, their AD call
 * sites in lto_main.c. Only whole-program (full) LTO sees both. */
#include <math.h>

double model(double x, double y) { return sin(x) * y + exp(x * y) - x / y + sqrt(x); }

double model_dx(double x, double y) { return cos(x) * y + y * exp(x * y) - 1.0 / y + 0.5 / sqrt(x); }
double model_dy(double x, double y) { return sin(x) + x * exp(x * y) + x / (y * y); }

/* pointer in, scalar out: sum of squares of a[0..n) times w */
double energy(const double *a, int n, double w) {
  double s = 0;
  for (int i = 0; i < 4 && i < n; ++i)
    s += w * a[i] * a[i];
  return s;
}
