// Found by the sanitizer runs (issue 8): a local array that survives SROA (read at a run-time
// index) is copied to the heap by the augmented forward sweep (calloc in augmented_f) and never
// freed by the reverse sweep. LeakSanitizer reports it at -O0 and -O2.
// RUN: %synthase-cc -O0 -g %sanflags %s -o %t0 -lm
// RUN: %sanenv %t0
// RUN: %synthase-cc -O2 -g %sanflags %s -o %t2 -lm
// RUN: %sanenv %t2
#include <stdio.h>
double __enzyme_autodiff(void *, ...);

static double f(double x) {
  double tmp[2];
  volatile int k = 1;
  tmp[0] = x;
  tmp[1] = x * tmp[0];
  tmp[0] = tmp[k] * x;
  return tmp[0] * tmp[1]; /* x^5 */
}

int main(void) {
  double d = __enzyme_autodiff((void *)f, 2.0);
  printf("%g (want 80)\n", d);
  return d != 80.0;
}
