// A caller's vector given another of the caller's blocks inside the differentiated call
// (`u = std::move(w)` with both passed with shadows): the gradient of u's old values has no place
// the caller can reach, and the program says so on standard error instead of leaving a silent
// zero. The gradient of w's values (now u's) is checked: 1 each.
// RUN: %synthase-cxx -O0 -I%inputs %s -o %t0 && %t0 2>&1 | %FileCheck %s
// RUN: %synthase-cxx -O2 -I%inputs %s -o %t2 && %t2 2>&1 | %FileCheck %s
// CHECK: synthase: warning: a container passed with its shadow was given memory inside the differentiated call that the call did not allocate
// CHECK: all 3 checks passed
#include "check.h"
#include <utility>
#include <vector>

static double take(std::vector<double> &u, std::vector<double> &w) {
  double s = 0;
  for (double x : u) s += x * x;
  u = std::move(w);
  for (double x : u) s += x;
  return s;
}

int main() {
  setenv("CHECK_VERBOSE", "1", 1);
  std::vector<double> u = {1, 2}, du = {0, 0}, w = {3, 4, 5}, dw = {0, 0, 0};
  __enzyme_autodiff((void *)take, enzyme_dup, &u, &du, enzyme_dup, &w, &dw);
  for (int i = 0; i < 3; i++) CHECK_CLOSE(du[i], 1.0, 1e-15, "d/dw[%d], now in du", i);
  return check_report();
}
