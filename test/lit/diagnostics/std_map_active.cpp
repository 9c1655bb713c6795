// A std::map built inside the differentiated function with float values: libstdc++ links its
// nodes out of line (std::_Rb_tree_insert_and_rebalance), which updates no shadow tree, so the
// values read back through the tree would carry no derivative. Both modes refuse the call
// instead of returning zeros (they did, silently, when the call was taken for an inactive one).
// RUN: not %synthase-cxx -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cxx -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cxx -O2 -DFORWARD -c %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: synthase: in function 'f(double const*, int)': {{.*}}'std::_Rb_tree_insert_and_rebalance
#include <map>
extern "C" {
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
}

double f(const double *x, int n) {
  std::map<int, double> m;
  for (int i = 0; i < n; i++)
    m[i % 3] += x[i] * x[i];
  double s = 0;
  for (auto &kv : m)
    s += kv.second * (kv.first + 1);
  return s;
}

double grad(const double *x, double *g, double *t) {
#ifdef FORWARD
  return __enzyme_fwddiff((void *)f, enzyme_dup, x, t, enzyme_const, 5);
#else
  return __enzyme_autodiff((void *)f, enzyme_dup, x, g, enzyme_const, 5);
#endif
}
