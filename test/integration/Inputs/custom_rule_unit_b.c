/* The second translation unit of custom_rule_units.c: the same header's rules, its own calls. */
#include "custom_rule_header.h"
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
double tangent_in_b(double x) { return __enzyme_fwddiff((void *)with_sq, x, 1.0); }
double gradient_in_b(double x) { return __enzyme_autodiff((void *)with_sq, x); }
