// Activity mismatch at the call site: a shadow for an integer argument. The message names the
// calling function, the __enzyme_* call instruction, its source line (with -g) and the hint.
// RUN: not %synthase-cc -O0 -g -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O2 -g -c %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: synthase: {{.*}}shadow_for_integer_details.c:[[@LINE+8]]:{{[0-9]+}}: in function 'driver': __enzyme_fwddiff: a shadow was passed for integer argument 1 of 'scale'
// CHECK-NEXT: instruction: {{.*}}call {{.*}}@__enzyme_fwddiff(
// CHECK-NEXT: hint: integers cannot carry derivatives: mark the argument enzyme_const
double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup;

static double scale(double x, int n) { return x * n; }

double driver(double x, int n) { return __enzyme_fwddiff((void *)scale, x, 1.0, enzyme_dup, n, 1); }
