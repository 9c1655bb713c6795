// __attribute__((enzyme_inactive)) on a function and on a global, and the same through Enzyme's
// registrations (`void *__enzyme_inactivefn[] = {...}`, `__enzyme_inactive_global`) (Synthase's clang plugin,
// SynthaseClang.so, loaded by synthase-cc). The function writes a counter and a log line and
// returns a value that does depend on x: marked inactive, its calls run once per call of f in
// the forward sweep (the counter matches the primal exactly), are never replayed by the reverse
// sweep, and its result is a constant for the derivative. The global is scratch memory: derivative
// data copied into it (as integers) is not an "unshadowed memory" error, and it gets no shadow.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0 > %t0.out && FileCheck %s < %t0.out
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2 > %t2.out && FileCheck %s < %t2.out
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3 > %t3.out && FileCheck %s < %t3.out
// RUN: %synthase-cxx -x c++ -O0 -I%inputs %s -o %t4 -lm && %t4 > %t4.out && FileCheck %s < %t4.out
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t5 -lm && %t5 > %t5.out && FileCheck %s < %t5.out
// Enzyme's registration globals instead of the attributes (no clang plugin needed):
// RUN: %synthase-cc -DREGISTRATION -O0 -I%inputs %s -o %t7 -lm && %t7 > %t7.out && FileCheck %s < %t7.out
// RUN: %synthase-cc -DREGISTRATION -O2 -I%inputs %s -o %t8 -lm && %t8 > %t8.out && FileCheck %s < %t8.out
// RUN: %synthase-cxx -x c++ -DREGISTRATION -O2 -I%inputs %s -o %t9 -lm && %t9 > %t9.out && FileCheck %s < %t9.out
// The plain clang-22 flags: the front-end plugin and the pass plugin.
// RUN: %clang -fplugin=%clang-plugin -fpass-plugin=%plugin -O2 -I%inputs %s -o %t6 -lm && %t6 > %t6.out && FileCheck %s < %t6.out
// CHECK-COUNT-5: log: x = 0.7
// CHECK-NOT: log:
// CHECK: counter 5 primal 1
#include "check.h"
#include <string.h>
#include <stdint.h>

static int counter = 0;

#ifndef REGISTRATION
#define INACTIVE __attribute__((enzyme_inactive))
#else
#define INACTIVE
#endif

/* Depends on x, so differentiating it would change the result: 1 + x taken as a constant. */
INACTIVE __attribute__((noinline)) double log_and_scale(double x) {
  ++counter;
  printf("log: x = %g\n", x);
  return 1 + x;
}

/* Scratch words holding copies of the input's bits: no shadow, not derivative data. */
INACTIVE uint64_t scratch[4];

#ifdef REGISTRATION
void *__enzyme_inactivefn[] = {(void *)log_and_scale};
void *__enzyme_inactive_global[] = {(void *)&scratch};
#endif

double f(double x) {
  double s = log_and_scale(x);
  memcpy(&scratch[0], &x, sizeof x);
  return x * x * s + sin(x);
}

double f2(double x, double *y) { /* through memory too: y's shadow must not see the call */
  *y = x * log_and_scale(x);
  return *y * x;
}

int main(void) {
  double x = 0.7;
  double primal = f(x);
  int after_primal = counter;
  double s = 1 + x; /* the inactive factor, a constant for the derivative */
  double want = 2 * x * s + cos(x);
  double r = __enzyme_autodiff((void *)f, x);
  double t = __enzyme_fwddiff((void *)f, x, 1.0);
  CHECK_CLOSE(r, want, 1e-14, "reverse, inactive factor constant");
  CHECK_CLOSE(t, want, 1e-14, "forward, inactive factor constant");
  CHECK_CLOSE(r, t, 1e-15, "modes agree");
  double y = 0, dy = 0;
  double r2 = __enzyme_autodiff((void *)f2, x, &y, &dy);
  double y2 = 0, ty = 0;
  double t2 = __enzyme_fwddiff((void *)f2, x, 1.0, &y2, &ty);
  CHECK_CLOSE(r2, 2 * x * s, 1e-14, "reverse through memory");
  CHECK_CLOSE(t2, 2 * x * s, 1e-14, "forward through memory");
  CHECK_CLOSE(ty, s, 1e-14, "forward tangent of *y");
  CHECK_CLOSE(primal, x * x * s + sin(x), 1e-15, "primal value");
  double bits;
  memcpy(&bits, &scratch[0], sizeof bits);
  CHECK_TRUE(bits == x, "scratch holds x");
  printf("counter %d primal %d\n", counter, after_primal);
  return check_report();
}
