// A std::map made outside the differentiated function: passed with enzyme_const (iterated both
// ways, values constant, derivative with respect to x), and with enzyme_dup, its shadow a copy
// of it with zeroed values (the shadow tree has the primal tree's shape, so repeating
// _Rb_tree_increment/_decrement on it reaches the shadow of each value): reverse mode adds the
// gradient into the shadow map's values, forward mode reads tangents from them.
// RUN: %synthase-cxx -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cxx -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
#include "check.h"
#include <map>
static double f(const std::map<int, double> *m, const double *x) {
  double s = 0;
  for (auto &kv : *m) s += kv.second * kv.second * x[kv.first];
  auto it = m->end(); --it;
  return s + it->second * x[0];
}
int main() {
  std::map<int, double> m;
  for (int i = 0; i < 6; i++) m[(i * 5) % 7] = 0.5 + i;
  double x[7] = {1, 2, 3, 4, 5, 6, 7}, g[7] = {0};
  __enzyme_autodiff((void *)f, enzyme_const, &m, enzyme_dup, x, g);
  for (int k = 0; k < 7; k++) {
    double want = m.count(k) ? m[k] * m[k] : 0; if (k == 0) want += m.rbegin()->second;
    CHECK_CLOSE(g[k], want, 1e-12, "const map: reverse dx[%d]", k);
    double e[7] = {0}; e[k] = 1;
    CHECK_CLOSE(__enzyme_fwddiff((void *)f, enzyme_const, &m, enzyme_dup, x, e), want, 1e-12, "const map: fwd dx[%d]", k);
  }
  // enzyme_dup: the shadow map is a copy with zeroed values (adjoints in, tangents out)
  std::map<int, double> dm = m;
  for (auto &kv : dm) kv.second = 0;
  double zx[7] = {0};
  __enzyme_autodiff((void *)f, enzyme_dup, &m, &dm, enzyme_dup, x, zx);
  for (auto &kv : m) {
    double want = 2 * kv.second * x[kv.first] + (kv.first == m.rbegin()->first ? x[0] : 0);
    CHECK_CLOSE(dm[kv.first], want, 1e-12, "dup map: reverse d/dm[%d]", kv.first);
    std::map<int, double> tm = m; for (auto &t : tm) t.second = t.first == kv.first ? 1 : 0;
    double z7[7] = {0};
    CHECK_CLOSE(__enzyme_fwddiff((void *)f, enzyme_dup, &m, &tm, enzyme_dup, x, z7), want, 1e-12, "dup map: fwd d/dm[%d]", kv.first);
  }
  return check_report();
}
