// A variadic callee that reads its variable arguments with va_arg is refused by name in both
// modes (before: an internal "not valid IR" error); one that never reads them is differentiated
// (integration/regressions/unread_varargs.c).
// RUN: not %synthase-cc -O0 -DREVERSE -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O2 -DREVERSE -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: synthase: in function 'vsum': cannot differentiate variadic function 'vsum': it reads its variable arguments (va_arg)
// CHECK: hint: pass the values in an array or as fixed parameters
// CHECK-NOT: not valid IR
#include <math.h>
#include <stdarg.h>
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_out;
__attribute__((noinline)) double vsum(int n, ...) {
  va_list ap;
  va_start(ap, n);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += va_arg(ap, double);
  va_end(ap);
  return s;
}
double f(double x) { return vsum(3, x, x * x, sin(x)); }
double run(double x) {
#ifdef REVERSE
  return __enzyme_autodiff((void *)f, enzyme_out, x);
#else
  return __enzyme_fwddiff((void *)f, x, 1.0);
#endif
}
