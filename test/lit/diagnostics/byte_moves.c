// Doubles copied byte by byte: reverse mode cannot give a byte an adjoint, so it refuses the copy
// with the source line instead of dropping the derivative (forward mode moves the shadow's bytes
// and is checked numerically below).
// RUN: not %synthase-cc -O0 -g -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O2 -g -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: %synthase-cc -O2 -DFORWARD %s -o %t && %t
// CHECK: byte_moves.c:[[@LINE+11]]:{{[0-9]+}}: in function 'bytecopy': floating-point data is moved as i8 values whose width does not match its element type
// CHECK: hint:
#include <stdio.h>
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
static double bytecopy(const double *x, int n) {
  double t[4];
  const volatile char *s = (const volatile char *)x;
  char *d = (char *)t;
  for (int i = 0; i < n * 8; i++)
    d[i] = s[i];
  return t[0] * t[1] + t[2] * t[3];
}
int main(void) {
  double x[4] = {1, 2, 3, 4}, dx[4] = {0, 1, 0, 0};
#ifdef FORWARD
  double t = __enzyme_fwddiff((void *)bytecopy, enzyme_dup, x, dx, enzyme_const, 4);
  printf("%g (want 1)\n", t);
  return t != 1.0;
#else
  return (int)__enzyme_autodiff((void *)bytecopy, enzyme_dup, x, dx, enzyme_const, 4);
#endif
}
