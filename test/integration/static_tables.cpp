// A lookup table built inside the differentiated function on its first call and kept in a
// function-local static (`static const std::vector<double> table = make_table();`, a heap block
// reached from a global without a shadow). The table never depends on the inputs, so storing its
// pointer where there is no shadow loses nothing; it was refused ("a pointer to differentiated
// memory is stored into memory that has no shadow"). A static work buffer that does receive
// active values stays refused (lit/diagnostics).
// Reverse mode against the analytic gradient and forward mode, on the first call (which builds
// the table) and on later ones.
// RUN: %synthase-cxx -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cxx -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
#include "check.h"
#include <cmath>
#include <vector>

static std::vector<double> make_table() {
  std::vector<double> t(8);
  for (int i = 0; i < 8; i++) t[i] = std::cos(0.2 * i);
  return t;
}

static double weighted(double *x, int n) {
  static const std::vector<double> table = make_table();
  double s = 0;
  for (int i = 0; i < n; i++) s += table[i] * x[i] * x[i];
  return s;
}

// The same table behind a pointer built with new on first use.
static double weighted_new(double *x, int n) {
  static const std::vector<double> *table = new std::vector<double>(make_table());
  double s = 0;
  for (int i = 0; i < n; i++) s += (*table)[i] * std::sin(x[i]);
  return s;
}

int main() {
  for (int call = 0; call < 3; call++) {
    double x[4] = {0.7, 1.3, -0.4, 0.2 + call}, dx[4] = {0}, dy[4] = {0};
    __enzyme_autodiff((void *)weighted, enzyme_dup, x, dx, enzyme_const, 4);
    __enzyme_autodiff((void *)weighted_new, enzyme_dup, x, dy, enzyme_const, 4);
    for (int i = 0; i < 4; i++) {
      CHECK_CLOSE(dx[i], 2 * std::cos(0.2 * i) * x[i], 1e-12, "call %d static table d[%d]", call, i);
      CHECK_CLOSE(dy[i], std::cos(0.2 * i) * std::cos(x[i]), 1e-12, "call %d static new table d[%d]", call, i);
      double d[4] = {0};
      d[i] = 1;
      CHECK_CLOSE(__enzyme_fwddiff((void *)weighted, enzyme_dup, x, d, enzyme_const, 4), dx[i], 1e-12,
                  "call %d forward [%d]", call, i);
    }
  }
  return check_report();
}
