// The full message for an unknown external callee applied to active data: function, callee,
// the call instruction, the source line (with -g) and the hint, in both modes.
// RUN: not %synthase-cc -O0 -g -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O2 -g -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O2 -g -DFORWARD -c %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: synthase: {{.*}}unknown_callee_details.c:[[@LINE+11]]:{{[0-9]+}}: in function 'model': cannot differentiate call to external function 'black_box'
// CHECK-NEXT: instruction: {{.*}}call double @black_box(
// CHECK-NEXT: hint: {{.*}}enzyme_const
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_const;

double black_box(double); /* defined in another translation unit */

static double model(double x, double y) {
  double t = x * y;
  return black_box(t) + y;
}

double g(double x, double y) {
#ifdef FORWARD
  return __enzyme_fwddiff((void *)model, x, 1.0, y, 0.0);
#else
  return __enzyme_autodiff((void *)model, x, enzyme_const, y);
#endif
}
