// More arguments than the differentiated function takes (an extra shadow for a const pointer,
// an extra integer).
// RUN: not %synthase-cc -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O0 -DFORWARD -c %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: synthase:
// CHECK-SAME: in function
// CHECK-SAME: too many arguments
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_const, enzyme_dup;

static double f(const double *p, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += p[i] * p[i];
  return s;
}

double g(double *p, double *dp, int n) {
#ifdef FORWARD
  return __enzyme_fwddiff((void *)f, enzyme_dup, p, dp, enzyme_const, n, 7);
#else
  return __enzyme_autodiff((void *)f, enzyme_const, p, dp, n);
#endif
}
