// Hash and tree maps keyed by std::string, built inside the differentiated function. Inserting a
// key moves its characters into the node that also holds the double, a copy of run-time length;
// from -O1 on the key's string is filled by libstdc++ (its members have bodies there), and the
// copy was refused as "cannot tell which bytes hold pointers and which hold floats". The
// characters carry no derivative. Reverse mode against central finite differences, forward
// mode against reverse.
// RUN: %synthase-cxx -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cxx -O1 -I%inputs %s -o %t1 -lm && %t1
// RUN: %synthase-cxx -O2 -I%inputs %s -o %t2 -lm && %t2
#include "check.h"
#include <cmath>
#include <map>
#include <string>
#include <unordered_map>

enum { N = 6 };

static double named(const double *x, int n) {
  std::unordered_map<std::string, double> h;
  std::map<std::string, double> t;
  h["first"] = x[0];
  h["product"] = x[1] * x[2];
  for (int i = 0; i < n; i++) {
    std::string key = "term_" + std::to_string(i % 4); // 0 and 4, 1 and 5 share a key
    h[key] += std::log(1 + x[i] * x[i]);
    t[key + "_long_enough_to_live_on_the_heap"] = std::sin(x[i]) * h[key];
  }
  double s = 0;
  for (auto &kv : h)
    s += kv.second * (1.0 + 0.1 * kv.first.size());
  for (auto &kv : t)
    s += kv.second * kv.second;
  return s;
}

static double named_fd(const double *x, void *) { return named(x, N); }

int main() {
  double x[N], g[N] = {0}, fd[N];
  for (int i = 0; i < N; i++)
    x[i] = 0.4 + 0.23 * i * (i % 2 ? -1 : 1);
  __enzyme_autodiff((void *)named, enzyme_dup, x, g, enzyme_const, N);
  check_fd_grad(named_fd, 0, x, N, fd);
  for (int i = 0; i < N; i++) {
    CHECK_CLOSE(g[i], fd[i], 1e-7, "reverse d/dx[%d]", i);
    double e[N] = {0};
    e[i] = 1;
    double t = __enzyme_fwddiff((void *)named, enzyme_dup, x, e, enzyme_const, N);
    CHECK_CLOSE(t, g[i], 1e-12, "forward vs reverse [%d]", i);
  }
  return check_report();
}
