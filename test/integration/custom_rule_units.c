// Custom rules registered in a header (`void *__enzyme_register_derivative_sq[] = {...}`, not
// static) that two translation units include. Compiled with -flto, each object kept its table
// as an external symbol and the link failed with a duplicate symbol; each table is now local to
// its unit, and both units' calls use the rule. Also linked without LTO and with ThinLTO. The
// rule scales sq's derivative to 3x (the true one is 2x), so the values tell the rule was used.
// RUN: %synthase-cc -O2 -I%inputs %s %inputs/custom_rule_unit_b.c -o %t1 -lm && %t1
// RUN: %synthase-cc -flto -O0 -I%inputs %s %inputs/custom_rule_unit_b.c -o %t2 -lm && %t2
// RUN: %synthase-cc -flto -O2 -I%inputs %s %inputs/custom_rule_unit_b.c -o %t3 -lm && %t3
// RUN: %synthase-cc -flto=thin -O2 -I%inputs %s %inputs/custom_rule_unit_b.c -o %t4 -lm && %t4
// RUN: %synthase-cc -flto=thin -O0 -I%inputs %s %inputs/custom_rule_unit_b.c -o %t5 -lm && %t5
#include "check.h"
#include "custom_rule_header.h"

double tangent_in_b(double x);
double gradient_in_b(double x);

int main(void) {
  const double xs[] = {-1.3, 0.4, 2.2};
  for (int i = 0; i < 3; i++) {
    double x = xs[i], want = cos(x) + 3.0 * x;
    CHECK_CLOSE(__enzyme_fwddiff((void *)with_sq, x, 1.0), want, 1e-12, "unit a forward x=%g", x);
    CHECK_CLOSE(__enzyme_autodiff((void *)with_sq, x), want, 1e-12, "unit a reverse x=%g", x);
    CHECK_CLOSE(tangent_in_b(x), want, 1e-12, "unit b forward x=%g", x);
    CHECK_CLOSE(gradient_in_b(x), want, 1e-12, "unit b reverse x=%g", x);
  }
  return check_report();
}
