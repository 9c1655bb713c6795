// A function-local static work buffer that receives active values (`static std::vector<double>
// scratch`, resized in the call): its heap block is reached from a global with no shadow, so the
// derivative of what it holds would be lost. Both modes refuse it at the store of the block's
// pointer (a read-only lookup table kept the same way is accepted: integration/static_tables.cpp).
// RUN: not %synthase-cxx -O2 -DREVERSE -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cxx -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cxx -O0 -DREVERSE -c %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: a pointer to differentiated memory is stored into memory that has no shadow
#include <vector>
extern "C" {
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
}
static double f(double *x, int n) {
  static std::vector<double> scratch;
  scratch.resize(n);
  for (int i = 0; i < n; i++) scratch[i] = x[i] * x[i];
  double s = 0;
  for (int i = 0; i < n; i++) s += scratch[i] * x[i];
  return s;
}
int main() {
  double x[3] = {1, 2, 3}, dx[3] = {0};
#ifdef REVERSE
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, 3);
  return (int)dx[0];
#else
  return (int)__enzyme_fwddiff((void *)f, enzyme_dup, x, dx, enzyme_const, 3);
#endif
}
