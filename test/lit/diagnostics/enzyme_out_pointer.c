// enzyme_out on a pointer argument is refused (pointers take enzyme_dup with a shadow).
// RUN: not %synthase-cc -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: synthase:
// CHECK-SAME: in function
// CHECK-SAME: enzyme_out on argument
double __enzyme_autodiff(void *, ...);
extern int enzyme_out;

static double f(const double *p) { return p[0] * p[1]; }

double g(double *p) { return __enzyme_autodiff((void *)f, enzyme_out, p); }
