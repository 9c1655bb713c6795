// std::unordered_map<std::string, double> inside a differentiated function (the shape of Enzyme's
// stl_umap.cpp, written anew): at -O2 the key's characters are moved into the hash node with a
// run-time-length memcpy out of a local std::string that std::_Hash_bytes also reads. Values go
// in through operator[] and come back through operator[] and at(); the gradient is checked
// against the analytic one and against forward mode.
// RUN: %synthase-cxx -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cxx -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
#include "check.h"
#include <string>
#include <unordered_map>

static std::unordered_map<std::string, double> table(double a, double b) {
  std::unordered_map<std::string, double> m;
  m["first_key"] = a * b + 1.0;
  m["second"] = a - 3.0 * b;
  m["a_much_longer_key_on_the_heap"] = b * b;
  return m;
}

static double read_back(double a, double b) {
  std::unordered_map<std::string, double> m = table(a, b);
  return m["first_key"] * 2.0 + m.at("second") + m.at("a_much_longer_key_on_the_heap");
}

struct grad2 { double da, db; };
extern "C" grad2 __enzyme_autodiff_g(void *, ...);

int main() {
  double a = 0.8, b = -1.3;
  CHECK_CLOSE(read_back(a, b), 2 * (a * b + 1) + (a - 3 * b) + b * b, 1e-15, "primal");
  grad2 g = __enzyme_autodiff_g((void *)read_back, a, b);
  CHECK_CLOSE(g.da, 2 * b + 1, 1e-14, "d/da");
  CHECK_CLOSE(g.db, 2 * a - 3 + 2 * b, 1e-14, "d/db");
  double t = __enzyme_fwddiff((void *)read_back, a, 0.0, b, 1.0);
  CHECK_CLOSE(t, g.db, 1e-14, "forward d/db agrees with reverse");
  return check_report();
}
