// std::function on active data: a member std::function<double(double)> called with an active
// argument (a lambda, a capturing lambda, a plain function), a std::function chosen at run time
// from a vector of them, and one built inside the differentiated function. Both modes against
// analytic values; forward and reverse agree.
// RUN: %synthase-cxx -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cxx -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
#include "check.h"
#include <functional>
#include <vector>

static double plain(double t) { return t * t * t; }

struct Model {
  std::function<double(double)> f;
  double scale;
};

__attribute__((noinline)) double eval(const Model *m, double x) { return m->scale * m->f(x) + m->f(2 * x); }

__attribute__((noinline)) double pick(const std::vector<std::function<double(double)>> *fs, const int *which,
                                      int n, double x) {
  double s = 0;
  for (int i = 0; i < n; i++) s += (*fs)[which[i]](x + i);
  return s;
}

static double inside(double x, int k) {
  std::function<double(double)> g;
  if (k == 0) g = [](double t) { return sin(t) * t; };
  else g = plain;
  return g(x) * g(x);
}

int main() {
  double a = 1.7;
  Model ms[3] = {{[](double t) { return sin(t) * t; }, 0.5},
                 {[a](double t) { return a * exp(t); }, 2.0},
                 {plain, -1.0}};
  auto dfun = [&](int k, double t) {
    return k == 0 ? cos(t) * t + sin(t) : k == 1 ? a * exp(t) : 3 * t * t;
  };
  double x = 0.6;
  for (int k = 0; k < 3; k++) {
    double d = __enzyme_autodiff((void *)eval, enzyme_const, &ms[k], enzyme_out, x);
    double want = ms[k].scale * dfun(k, x) + 2 * dfun(k, 2 * x);
    CHECK_CLOSE(d, want, 1e-12, "member %d: reverse", k);
    double t = __enzyme_fwddiff((void *)eval, enzyme_const, &ms[k], enzyme_dup, x, 1.0);
    CHECK_CLOSE(t, d, 1e-12, "member %d: forward = reverse", k);
  }

  std::vector<std::function<double(double)>> fs = {ms[0].f, ms[1].f, ms[2].f};
  int which[5] = {2, 0, 1, 1, 0};
  double d = __enzyme_autodiff((void *)pick, enzyme_const, &fs, enzyme_const, which, enzyme_const, 5, enzyme_out, x);
  double want = 0;
  for (int i = 0; i < 5; i++) want += dfun(which[i], x + i);
  CHECK_CLOSE(d, want, 1e-12, "vector of std::function: reverse");
  double t = __enzyme_fwddiff((void *)pick, enzyme_const, &fs, enzyme_const, which, enzyme_const, 5, enzyme_dup, x, 1.0);
  CHECK_CLOSE(t, d, 1e-12, "vector of std::function: forward = reverse");

  for (int k = 0; k < 2; k++) {
    double d2 = __enzyme_autodiff((void *)inside, enzyme_out, x, enzyme_const, k);
    double g = k == 0 ? sin(x) * x : plain(x), dg = k == 0 ? dfun(0, x) : dfun(2, x);
    CHECK_CLOSE(d2, 2 * g * dg, 1e-12, "built inside %d: reverse", k);
    double t2 = __enzyme_fwddiff((void *)inside, enzyme_dup, x, 1.0, enzyme_const, k);
    CHECK_CLOSE(t2, d2, 1e-12, "built inside %d: forward = reverse", k);
  }
  return check_report();
}
