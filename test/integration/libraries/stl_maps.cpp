// std::unordered_map built inside the differentiated function with active values: its nodes are
// linked by inlined code, so their shadows follow (reverse vs the analytic gradient, forward vs
// reverse). std::map, std::set and std::list, whose nodes libstdc++ links out of line, are in
// stl_tree_containers.cpp and stl_list.cpp.
// RUN: %synthase-cxx -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cxx -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
#include "check.h"
#include <unordered_map>

// f(x) = sum_i (i % 3 + 1) x_i^2 + x_0 * (number of distinct keys of an integer hash map).
static double f(const double *x, int n) {
  std::unordered_map<int, double> m;
  for (int i = 0; i < n; i++)
    m[i % 3] += x[i] * x[i];
  std::unordered_map<int, int> count;
  for (int i = 0; i < n; i++)
    count[i % 4]++;
  double s = 0;
  for (auto &kv : m)
    s += kv.second * (kv.first + 1);
  return s + x[0] * (double)count.size();
}

int main() {
  double x[7] = {1, 2, 3, 4, 5, -1, 0.5}, g[7] = {0};
  const int n = 7;
  __enzyme_autodiff((void *)f, enzyme_dup, x, g, enzyme_const, n);
  for (int i = 0; i < n; i++) {
    double want = 2 * x[i] * (i % 3 + 1) + (i == 0 ? 4 : 0);
    CHECK_CLOSE(g[i], want, 1e-12, "unordered_map: reverse dx[%d]", i);
    double e[7] = {0};
    e[i] = 1;
    double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, e, enzyme_const, n);
    CHECK_CLOSE(t, want, 1e-12, "unordered_map: forward dx[%d]", i);
  }
  return check_report();
}
