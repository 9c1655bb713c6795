// A global named like a marker that is not one (enzyme_foo) is refused, not taken as data.
// RUN: not %synthase-cc -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O0 -DFORWARD -c %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: synthase:
// CHECK-SAME: in function
// CHECK-SAME: unknown marker
// CHECK-SAME: enzyme_foo
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_foo;

static double f(double x, double y) { return x * y; }

double g(double x, double y) {
#ifdef FORWARD
  return __enzyme_fwddiff((void *)f, x, 1.0, enzyme_foo, y);
#else
  return __enzyme_autodiff((void *)f, x, enzyme_foo, y);
#endif
}
