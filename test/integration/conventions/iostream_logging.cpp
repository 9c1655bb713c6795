// Logging to std::cerr / std::cout inside differentiated code (characters, strings and the
// values themselves): the output is not differentiated and the derivative is unchanged.
// RUN: %synthase-cxx -O0 -I%inputs %s -o %t0 -lm && %t0 2>/dev/null
// RUN: %synthase-cxx -O2 -I%inputs %s -o %t2 -lm && %t2 2>/dev/null
// RUN: %synthase-cxx -O3 -march=native -I%inputs %s -o %t3 -lm && %t3 2>/dev/null
#include "check.h"
#include <iostream>

static double chatty(double x, double y) {
  std::cerr << "x = " << x << '\n';
  double r = x * x * y;
  std::cout << "r: " << r << std::endl;
  return r;
}

int main() {
  double x = 1.5, y = 0.25;
  double g = __enzyme_autodiff((void *)chatty, x, enzyme_const, y);
  CHECK_CLOSE(g, 2 * x * y, 1e-15, "reverse mode through iostream logging");
  double t = __enzyme_fwddiff((void *)chatty, x, 1.0, enzyme_const, y);
  CHECK_CLOSE(t, 2 * x * y, 1e-15, "forward mode through iostream logging");
  return check_report();
}
