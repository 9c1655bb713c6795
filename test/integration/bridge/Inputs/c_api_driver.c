/* Runs the module c_api.c differentiated. With "short" it passes a shadow shorter than its
 * primal, which the guard must stop. */
#include "check.h"

typedef struct { double primal, dx; } Grad;
Grad dsquare(double x, double seed);
void dsumsq(const double *a, long n, double *da, long dn, double seed);

int main(int argc, char **argv) {
  double a[3] = {1.0, -2.0, 4.0}, da[3] = {0, 0, 0};
  if (argc > 1 && !strcmp(argv[1], "short")) {
    dsumsq(a, 3, da, 2, 1.0);
    return 0;
  }
  Grad g = dsquare(-1.5, 1.0);
  CHECK_CLOSE(g.primal, 2.25, 1e-12, "dsquare primal");
  CHECK_CLOSE(g.dx, -3.0, 1e-12, "dsquare adjoint");
  dsumsq(a, 3, da, 3, 0.5);
  for (int i = 0; i < 3; ++i)
    CHECK_CLOSE(da[i], 0.5 * 2.0 * a[i], 1e-12, "dsumsq[%d]", i);
  return check_report();
}
