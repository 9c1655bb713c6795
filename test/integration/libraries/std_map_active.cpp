// A std::map built inside the differentiated function with float values (formerly a diagnostics
// test: libstdc++ links the nodes out of line, with std::_Rb_tree_insert_and_rebalance, which
// updated no shadow tree, so the call was refused). The derivative now repeats the call on the
// shadow tree (Rules/NodeLinks.cpp). f(x) = sum_i (i % 3 + 1) x_i^2, in both modes against that
// analytic gradient.
// RUN: %synthase-cxx -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cxx -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
#include "check.h"
#include <map>

static double f(const double *x, int n) {
  std::map<int, double> m;
  for (int i = 0; i < n; i++)
    m[i % 3] += x[i] * x[i];
  double s = 0;
  for (auto &kv : m)
    s += kv.second * (kv.first + 1);
  return s;
}

int main() {
  const int n = 5;
  double x[n] = {0.5, -1.25, 2.0, 0.75, -0.3};
  for (int i = 0; i < n; i++) {
    double want = 2 * x[i] * (i % 3 + 1), g[n] = {0}, e[n] = {0};
    __enzyme_autodiff((void *)f, enzyme_dup, x, g, enzyme_const, n);
    e[i] = 1;
    CHECK_CLOSE(g[i], want, 1e-12, "std::map: reverse d/dx[%d]", i);
    CHECK_CLOSE(__enzyme_fwddiff((void *)f, enzyme_dup, x, e, enzyme_const, n), want, 1e-12,
                "std::map: forward d/dx[%d]", i);
  }
  return check_report();
}
