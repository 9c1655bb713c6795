// Inline assembly applied to active data cannot be differentiated: the diagnostic names the
// function, the asm instruction and the source line (with -g), with a hint.
// RUN: not %synthase-cc -O0 -g -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O2 -g -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O0 -g -DFORWARD -c %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: synthase: {{.*}}inline_asm.c:[[@LINE+9]]:{{[0-9]+}}: in function 'asm_copy':
// CHECK-NEXT: instruction: {{.*}}call double asm "movsd
// CHECK-NEXT: hint:
// REQUIRES: x86_64
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

static double asm_copy(double x) {
  double y;
  __asm__("movsd %1, %0" : "=x"(y) : "x"(x));
  return y * x;
}

double g(double x) {
#ifdef FORWARD
  return __enzyme_fwddiff((void *)asm_copy, x, 1.0);
#else
  return __enzyme_autodiff((void *)asm_copy, x);
#endif
}
