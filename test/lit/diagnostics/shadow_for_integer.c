// A shadow passed for an integer argument (enzyme_dup on an int) is refused.
// RUN: not %synthase-cc -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O0 -DREVERSE -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REV
// CHECK: synthase:
// CHECK-SAME: in function
// CHECK-SAME: a shadow was passed for integer argument
// REV: synthase:
// REV-SAME: in function
// REV-SAME: argument 1
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup;

static double f(double x, int n) { return x * n; }

double g(double x, int n) {
#ifdef REVERSE
  return __enzyme_autodiff((void *)f, x, enzyme_dup, n, n);
#else
  return __enzyme_fwddiff((void *)f, x, 1.0, enzyme_dup, n, 1);
#endif
}
