/* The AD half of a two-file program (see lto_model.c). */
#include "check.h"

typedef struct { double dx, dy; } lto_g2;
lto_g2 __enzyme_autodiff_g2(void *, ...);

double model(double x, double y);
double model_dx(double x, double y);
double model_dy(double x, double y);
double energy(const double *a, int n, double w);

int main(void) {
  for (int i = 1; i <= 4; ++i) {
    double x = 0.4 * i, y = 1.3 - 0.2 * i;
    lto_g2 g = __enzyme_autodiff_g2((void *)model, x, y);
    CHECK_CLOSE(g.dx, model_dx(x, y), 1e-13, "rev dmodel/dx");
    CHECK_CLOSE(g.dy, model_dy(x, y), 1e-13, "rev dmodel/dy");
    CHECK_CLOSE(__enzyme_fwddiff((void *)model, x, 1.0, y, 0.0), model_dx(x, y), 1e-13, "fwd dx");
    CHECK_CLOSE(__enzyme_fwddiff((void *)model, x, 0.0, y, 1.0), model_dy(x, y), 1e-13, "fwd dy");

    double a[4] = {x, y, -x, 0.5 * i}, da[4] = {0, 0, 0, 0};
    double dw = __enzyme_autodiff((void *)energy, enzyme_dup, a, da, enzyme_const, 4, enzyme_out, y);
    CHECK_CLOSE(dw, check_dot(a, a, 4), 1e-13, "rev denergy/dw");
    for (int k = 0; k < 4; ++k)
      CHECK_CLOSE(da[k], 2.0 * y * a[k], 1e-13, "rev denergy/da[%d]", k);
  }
  if (check_report())
    return 1;
  printf("lto: %d checks passed\n", check_count_);
  return 0;
}
