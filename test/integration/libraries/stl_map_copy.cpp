// A std::map copied inside the differentiated function, then changed and iterated both ways, in
// forward mode against central finite differences (reverse mode refuses the copy:
// lit/diagnostics/std_map_copy_reverse.cpp). The copy leaves the shadow tree's node colours to the
// integer-move rules; the derivative copies the colours each rebalancing on the copy reads from
// the primal nodes before repeating it on the shadow tree, so the shadow tree keeps the primal
// tree's shape through the erasures and insertions below.
// RUN: %synthase-cxx -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cxx -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
#include "check.h"
#include <map>

enum { N = 24 };

static double map_copy(const double *x, int n) {
  std::map<double, double> a;
  for (int i = 0; i < n; i++)
    a[x[i]] = std::exp(0.1 * x[i]);
  std::map<double, double> b = a;
  for (int i = 0; i < n; i += 3)
    b.erase(x[i]);
  for (int i = 0; i < n; i += 2)
    b[x[i] + 10.0] = x[i] * x[i];
  std::map<double, double> c;
  c = b; // assignment: _M_copy again
  c.erase(c.begin());
  double s = 0;
  for (auto it = c.rbegin(); it != c.rend(); ++it)
    s = 0.9 * s + it->first * it->second;
  for (auto &kv : a)
    s += kv.second * kv.second;
  return s;
}

static double fd_wrap(const double *x, void *) { return map_copy(x, N); }

int main() {
  double x[N], fd[N];
  check_seed(15);
  for (int i = 0; i < N; i++)
    x[i] = 0.1 * ((i * 17) % N) - 1.2 + 0.01 * check_uniform(0, 1);
  check_fd_grad(fd_wrap, 0, x, N, fd);
  for (int i = 0; i < N; i++) {
    double e[N] = {0};
    e[i] = 1;
    double t = __enzyme_fwddiff((void *)map_copy, enzyme_dup, x, e, enzyme_const, N);
    CHECK_CLOSE(t, fd[i], 1e-6, "map copy: forward d/dx[%d] vs FD", i);
  }
  return check_report();
}
