// Heavy std::vector code inside differentiated C++ (issue 12: crashed at -O0): vectors of vectors,
// transform, sort, insert, resize, accumulate, inner_product and push_back growth, in both modes
// against central finite differences, forward against reverse.
// RUN: %synthase-cxx -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cxx -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
#include "check.h"
#include <algorithm>
#include <numeric>
#include <vector>

static double f(const double *p, int n) {
  std::vector<std::vector<double>> rows(n, std::vector<double>(n));
  for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) rows[i][j] = p[i] * p[j] + (i == j);
  std::vector<double> v(p, p + n);
  std::transform(v.begin(), v.end(), v.begin(), [](double x) { return std::sin(x) * x; });
  std::sort(v.begin(), v.end());
  v.insert(v.begin() + 1, p[0] * 2.0);
  v.resize(n + 3, 0.5);
  double s = std::accumulate(v.begin(), v.end(), 0.0);
  for (auto &r : rows) s += std::inner_product(r.begin(), r.end(), v.begin(), 0.0);
  std::vector<double> w; for (int k = 0; k < 50; k++) w.push_back(s * 0.01 * k + p[k % n]);
  return s + std::accumulate(w.begin(), w.end(), 0.0) * 0.1;
}
static double f_fd(const double *p, void *) { return f(p, 5); }

int main() {
  const int n = 5;
  double p[n], g[n] = {0}, fd[n];
  for (int i = 0; i < n; i++)
    p[i] = 0.3 + 0.17 * i * (i % 2 ? -1 : 1);
  __enzyme_autodiff((void *)f, enzyme_dup, p, g, enzyme_const, n);
  check_fd_grad(f_fd, 0, p, n, fd);
  for (int i = 0; i < n; i++) {
    CHECK_CLOSE(g[i], fd[i], 1e-7, "reverse d/dp[%d]", i);
    double e[n] = {0};
    e[i] = 1;
    double t = __enzyme_fwddiff((void *)f, enzyme_dup, p, e, enzyme_const, n);
    CHECK_CLOSE(t, g[i], 1e-12, "forward vs reverse [%d]", i);
  }
  return check_report();
}
