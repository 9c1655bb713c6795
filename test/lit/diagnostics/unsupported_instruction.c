// An unsupported instruction on active data (reinterpreting a double's bits as an integer) is
// refused with a diagnostic naming the function, the instruction, the source line (with -g) and
// a hint, in both modes (reverse mode used to accept it silently with a wrong derivative:
// test/integration/regressions/bitcast_silent_reverse.c).
// RUN: not %synthase-cc -O0 -g -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O2 -g -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O0 -g -DFORWARD -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O2 -g -DFORWARD -c %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: synthase: {{.*}}unsupported_instruction.c:[[@LINE+16]]:{{[0-9]+}}: in function 'fast_rsqrt': bitcast between a float and a non-float type
// CHECK-NEXT: instruction: {{.*}}bitcast double {{.*}} to i64
// CHECK-NEXT: hint: {{.*}}not differentiable
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

#ifdef __cplusplus
extern "C" {
#endif
void *memcpy(void *, const void *, unsigned long);
#ifdef __cplusplus
}
#endif
static double fast_rsqrt(double x) {
  long long i;
  double y = x;
  memcpy(&i, &y, sizeof i);
  i = 0x5fe6eb50c7b537a9LL - (i >> 1);
  memcpy(&y, &i, sizeof y);
  return y * (1.5 - 0.5 * x * y * y);
}

double g(double x) {
#ifdef FORWARD
  return __enzyme_fwddiff((void *)fast_rsqrt, x, 1.0);
#else
  return __enzyme_autodiff((void *)fast_rsqrt, x);
#endif
}
