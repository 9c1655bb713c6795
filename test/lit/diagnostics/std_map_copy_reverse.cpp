// Copying a std::map or std::set in reverse mode: libstdc++'s recursive _Rb_tree::_M_copy copies
// each value as bytes whose types that function never shows, so the adjoints of the copy would not
// reach the original (they were silently dropped). Refused, naming the copy; forward mode works
// (integration/libraries/stl_map_copy.cpp), and so does building the copy from the elements.
// RUN: not %synthase-cxx -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cxx -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: synthase: in function 'f(double const*, int)': copying a std::map or std::set (libstdc++'s _Rb_tree::_M_copy) is not supported in reverse mode
// CHECK: hint: build the copy from the elements instead
#include <map>
extern "C" {
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
}

double f(const double *x, int n) {
  std::map<int, double> a;
  for (int i = 0; i < n; i++)
    a[i] = x[i] * x[i];
  std::map<int, double> b = a;
  double s = 0;
  for (auto &kv : b)
    s += kv.second * (kv.first + 1);
  return s;
}

double grad(const double *x, double *g) { return __enzyme_autodiff((void *)f, enzyme_dup, x, g, enzyme_const, 5); }
