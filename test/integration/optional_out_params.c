// An optional out-parameter (`double *deriv`, null when not wanted, every store behind
// `if (deriv)`) passed as null to a callee that stays out of line (recursive), which passes it on
// to itself: the callee's derivative stored an active value through a pointer without a shadow
// and was refused. Now a call passing null goes to a copy of the callee with that argument null.
// The same callee called with a real buffer (a duplicated one, and one the primal reads after
// the call) keeps its stores.
// Reverse mode against the analytic derivative and central finite differences, forward mode
// against reverse.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O2 -g -I%inputs %s -o %tg -lm && %tg
#include "check.h"
#include <math.h>
#include <stddef.h>

__attribute__((noinline)) static double model(double a, double b, double *deriv, int *calls) {
  if (calls)
    ++*calls;
  if (a > 2)
    return model(a - 1, b, deriv, calls) * b;
  double v = exp(-a * b) * sin(a);
  if (deriv)
    *deriv = (-b * sin(a) + cos(a)) * exp(-a * b); // d/da of the base case
  return v;
}

static double f_null(double a, double b) { return model(a, b, NULL, NULL); }

// The out-parameter wanted: its value (an active one) is part of the result.
static double f_used(double a, double b) {
  double d = 0;
  return model(a, b, &d, NULL) + 0.5 * d;
}

static double base(double a, double b) { return exp(-a * b) * sin(a); }

int main(void) {
  const double a = 2.7, b = 1.3, h = 1e-6;
  double g = __enzyme_autodiff((void *)f_null, a, enzyme_const, b);
  // a = 2.7 recurses once: b * base(a - 1, b)
  CHECK_CLOSE(g, b * (-b * sin(a - 1) + cos(a - 1)) * exp(-(a - 1) * b), 1e-12, "null out-parameter d/da");
  CHECK_CLOSE(g, (f_null(a + h, b) - f_null(a - h, b)) / (2 * h), 1e-6, "null out-parameter vs FD");
  CHECK_CLOSE(__enzyme_fwddiff((void *)f_null, a, 1.0, b, 0.0), g, 1e-12, "null out-parameter forward");
  double gu = __enzyme_autodiff((void *)f_used, a, enzyme_const, b);
  CHECK_CLOSE(gu, (f_used(a + h, b) - f_used(a - h, b)) / (2 * h), 1e-6, "used out-parameter vs FD");
  CHECK_CLOSE(__enzyme_fwddiff((void *)f_used, a, 1.0, b, 0.0), gu, 1e-12, "used out-parameter forward");
  // The primal with a real pointer still writes it.
  double d = 0;
  int calls = 0;
  double v = model(a, b, &d, &calls);
  CHECK_CLOSE(v, b * base(a - 1, b), 1e-15, "primal value");
  CHECK_CLOSE(d, (-b * sin(a - 1) + cos(a - 1)) * exp(-(a - 1) * b), 1e-15, "primal out-parameter");
  CHECK_TRUE(calls == 2, "primal call count %d", calls);
  return check_report();
}
