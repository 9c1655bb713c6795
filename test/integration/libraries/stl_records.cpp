// Vectors of records that mix an integer with floats, built and reordered inside the
// differentiated function:
// - std::tuple<int, double, double> grown by emplace_back: at -O0 libstdc++ relocates it member by
//   member as i64, i64, i32 moves, and the i32 was refused as "floating-point data moved as i32";
// - struct {int id; double w; float f;} sorted by its double: from -O1 on the sort's temporaries
//   are only ever copied as 24 bytes, so the layout comes from clang's !tbaa.struct of the copy
//   (was refused: "accessed as floating-point values of different widths"). Not at -O0, where
//   clang emits no type tags: that build leaves the mixed-width sort out (it is still refused).
// Reverse mode against central finite differences, forward against reverse.
// RUN: %synthase-cxx -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cxx -O1 -DSORT_MIXED -I%inputs %s -o %t1 -lm && %t1
// RUN: %synthase-cxx -O2 -DSORT_MIXED -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -O3 -march=native -DSORT_MIXED -I%inputs %s -o %t3 -lm && %t3
#include "check.h"
#include <algorithm>
#include <cmath>
#include <tuple>
#include <vector>

enum { N = 7 };
struct Rec {
  int id;
  double w;
  float f;
};

static double records(const double *x, int n) {
  std::vector<std::tuple<int, double, double>> v;
  for (int i = 0; i < n; i++)
    v.emplace_back(i, x[i] * x[i], std::sin(x[i]));
  double s = 0;
  for (auto &t : v)
    s += std::get<1>(t) * std::get<2>(t) * (std::get<0>(t) + 1);
#ifdef SORT_MIXED
  std::vector<Rec> r;
  for (int i = 0; i < n; i++)
    r.push_back({i * 3 + 1, std::cos(x[i]) * 2, 0.5f + i});
  std::sort(r.begin(), r.end(), [](const Rec &a, const Rec &b) { return a.w < b.w; });
  for (int k = 0; k < n; k++) // by rank: the order matters
    s += r[k].w * r[k].w * r[k].id * r[k].f * (k + 1);
#endif
  return s;
}

static double records_fd(const double *x, void *) { return records(x, N); }

int main() {
  double x[N], g[N] = {0}, fd[N];
  for (int i = 0; i < N; i++)
    x[i] = 0.35 + 0.29 * i * (i % 2 ? -1 : 1);
  __enzyme_autodiff((void *)records, enzyme_dup, x, g, enzyme_const, N);
  check_fd_grad(records_fd, 0, x, N, fd);
  for (int i = 0; i < N; i++) {
    CHECK_CLOSE(g[i], fd[i], 1e-7, "reverse d/dx[%d]", i);
    double e[N] = {0};
    e[i] = 1;
    double t = __enzyme_fwddiff((void *)records, enzyme_dup, x, e, enzyme_const, N);
    CHECK_CLOSE(t, g[i], 1e-12, "forward vs reverse [%d]", i);
  }
  return check_report();
}
