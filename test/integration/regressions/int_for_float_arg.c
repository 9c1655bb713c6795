// Found by the libFuzzer target over call-site lowering (issue 8): an integer passed where the
// differentiated function takes a float (here the literal 3 for `float x`, and the literal 1 as
// its tangent) is reinterpreted bit for bit (bitcast i32 to float: 3 becomes 4.2e-45), so the
// derivative is silently wrong (8.4e-45 instead of 6). Expected: convert the value like a
// prototype would, or refuse with a diagnostic. The test passes either way.
// RUN: %synthase-cc -O0 %s -o %t0 > %t0.log 2>&1 && %t0 || FileCheck %s < %t0.log
// RUN: %synthase-cc -O2 %s -o %t2 > %t2.log 2>&1 && %t2 || FileCheck %s < %t2.log
// CHECK: synthase: {{.*}}in function 'main'
#include <stdio.h>
float __enzyme_autodiff_f(void *, ...);
float __enzyme_fwddiff_f(void *, ...);
static float sq(float x) { return x * x; }
int main(void) {
  float r = __enzyme_autodiff_f((void *)sq, 3);          /* int where a float is expected */
  float t = __enzyme_fwddiff_f((void *)sq, 3.0, 1);      /* int tangent */
  printf("rev %g fwd %g (want 6 6, or a diagnostic)\n", r, t);
  return !(r == 6 && t == 6);
}
