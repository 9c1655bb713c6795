/* A custom forward derivative and gradient registered in a header that several translation
   units include: each unit gets its own (static) functions and its own registration. */
#ifndef CUSTOM_RULE_HEADER_H
#define CUSTOM_RULE_HEADER_H
#include <math.h>
/* sq(x) = x^2, with rules that scale the derivative by 1.5 so that their use is visible. */
__attribute__((noinline)) static double sq(double x) { return x * x; }
static double sq_fwd(double x, double dx) { return 3.0 * x * dx; }
static double sq_aug(double x) { return x * x; }
static double sq_rev(double x, double d) { return 3.0 * x * d; }
void *__enzyme_register_derivative_sq[] = {(void *)sq, (void *)sq_fwd};
void *__enzyme_register_gradient_sq[] = {(void *)sq, (void *)sq_aug, (void *)sq_rev};
static double with_sq(double x) { return sin(x) + sq(x); }
#endif
