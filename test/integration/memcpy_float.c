// memcpy of float (not double) data through pointer arguments: reverse mode must move adjoints
// in 4-byte elements, deduced from how the function reads the copied memory.
// RUN: %synthase-cc -O0 %s -o %t0 && %t0
// RUN: %synthase-cc -O2 %s -o %t2 && %t2
#include <stdio.h>
#include <string.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
static float f(float *a, float *b, int n) {
  memcpy(b, a, n * sizeof(float));
  float s = 0;
  for (int i = 0; i < n; i++) s += b[i] * b[i];
  return s;
}
int main(void) {
  float a[4] = {1, 2, 3, 4}, da[4] = {1, 1, 1, 1}, b[4], db[4] = {0};
  __enzyme_autodiff((void *)f, enzyme_dup, a, da, enzyme_dup, b, db, enzyme_const, 4);
  int bad = 0;
  for (int i = 0; i < 4; i++) // d/da_i sum a_i^2 = 2 a_i, added to the initial 1
    if (da[i] != 1 + 2 * a[i]) { printf("da[%d] = %g, want %g\n", i, da[i], 1 + 2 * a[i]); bad = 1; }
  return bad;
}
