// Fewer arguments than the differentiated function has parameters.
// RUN: not %synthase-cc -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O0 -DFORWARD -c %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: synthase:
// CHECK-SAME: in function
// CHECK-SAME: too few arguments
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_const;

static double f(double x, double y, int n) { return x * y * n; }

double g(double x) {
#ifdef FORWARD
  return __enzyme_fwddiff((void *)f, x, 1.0, enzyme_const, x);
#else
  return __enzyme_autodiff((void *)f, x, enzyme_const, x);
#endif
}
