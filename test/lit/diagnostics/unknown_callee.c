// An external function with no body and no known derivative, applied to active data, is refused
// with a diagnostic that names the callee, in both modes and at -O0 and -O2.
// RUN: not %synthase-cc -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O0 -DFORWARD -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O2 -DFORWARD -c %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: synthase:
// CHECK-SAME: in function
// CHECK-SAME: opaque_physics_kernel
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

double opaque_physics_kernel(double); /* defined in another translation unit */

static double f(double x) { return opaque_physics_kernel(x * x) + x; }

double g(double x) {
#ifdef FORWARD
  return __enzyme_fwddiff((void *)f, x, 1.0);
#else
  return __enzyme_autodiff((void *)f, x);
#endif
}
