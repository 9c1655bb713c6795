// Found while writing the diagnostics tests (issue 8): a function that reinterprets a double's
// bits as an integer (the classic fast inverse square root) is refused by forward mode ("bitcast
// between a float and a non-float type"), but reverse mode differentiates it silently at -O0 and
// -O2 with the integer path treated as constant: the derivative misses d(y0)/dx
// (rev -0.1563 vs FD -0.1452 at x = 2.3).
// Expected: the same diagnostic at every opt level (never a silently wrong derivative).
// RUN: not %synthase-cc -O0 %s -o %t0 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O2 %s -o %t2 2>&1 | FileCheck %s
// CHECK: in function 'fast_rsqrt': bitcast between a float and a non-float type
#include <stdio.h>
#include <string.h>
double __enzyme_autodiff(void *, ...);

static double fast_rsqrt(double x) {
  long long i;
  double y = x;
  memcpy(&i, &y, sizeof i);
  i = 0x5fe6eb50c7b537a9LL - (i >> 1);
  memcpy(&y, &i, sizeof y);
  return y * (1.5 - 0.5 * x * y * y);
}

/* the same function for finite differences, kept out of reach of the optimizer */
__attribute__((noinline)) static double fast_rsqrt_fd(double x) {
  long long i;
  volatile double y = x;
  double yy = y;
  memcpy(&i, &yy, sizeof i);
  i = 0x5fe6eb50c7b537a9LL - (i >> 1);
  memcpy(&yy, &i, sizeof yy);
  return yy * (1.5 - 0.5 * x * yy * yy);
}

int main(void) {
  double x = 2.3, h = 1e-7;
  double fd = (fast_rsqrt_fd(x + h) - fast_rsqrt_fd(x - h)) / (2 * h);
  double r = __enzyme_autodiff((void *)fast_rsqrt, x);
  printf("rev %.10g FD %.10g\n", r, fd);
  return !(r - fd < 1e-5 && fd - r < 1e-5);
}
