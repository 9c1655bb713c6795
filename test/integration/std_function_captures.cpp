// Lambdas that capture active values by value, stored in std::function: the capture lives in the
// function object's small-object buffer, a union that libstdc++ types as pointers, and moving the
// std::function copies those bytes. The copy must hand the captured double's adjoint back (it was
// dropped: a zero derivative with respect to the capture). Also: std::function members of heap
// objects called through virtual functions, a vector of std::function, and a capture too large
// for the buffer (kept on the heap). Reverse and forward vs. central differences and each other.
// Doubles captured by value into std::function objects that are then relocated inside a vector
// are refused instead (diagnostics/std_function_union.cpp): which captures the relocated buffer
// holds is not known where it is copied.
// RUN: %synthase-cxx -O0 -I%inputs %s -o %t0 && %t0
// RUN: %synthase-cxx -O2 -I%inputs %s -o %t2 && %t2
// RUN: %synthase-cxx -O3 -march=native -I%inputs %s -o %t3 && %t3
#include "check.h"
#include <cmath>
#include <functional>
#include <memory>
#include <vector>

#define N 5

struct Holder {
  std::function<double(double)> phi;
};

__attribute__((noinline)) static double apply(const Holder &h, double v) { return h.phi(v); }

static double moved_capture(const double *x, int n) {
  double a = x[0];
  std::function<double(double)> p = [a](double v) { return std::cos(a * v); };
  Holder h{std::move(p)};
  double s = 0;
  for (int i = 1; i < n; ++i)
    s += apply(h, x[i]);
  return s;
}

struct Term {
  virtual ~Term() = default;
  virtual double energy(const std::vector<double> &q) const = 0;
};
struct Spring : Term {
  int i, j;
  double k;
  Spring(int i, int j, double k) : i(i), j(j), k(k) {}
  double energy(const std::vector<double> &q) const override {
    double d = q[i] - q[j];
    return 0.5 * k * d * d;
  }
};
struct Potential : Term {
  std::vector<double> w;
  std::function<double(double)> phi;
  Potential(std::vector<double> w, std::function<double(double)> p) : w(std::move(w)), phi(std::move(p)) {}
  double energy(const std::vector<double> &q) const override {
    double s = 0;
    for (size_t i = 0; i < q.size(); ++i)
      s += w[i] * phi(q[i]);
    return s;
  }
};

static double system_energy(const double *x, int n) {
  std::vector<std::unique_ptr<Term>> terms;
  for (int i = 0; i + 1 < n; ++i)
    terms.push_back(std::make_unique<Spring>(i, i + 1, 1.0 + i));
  double a = x[0], b = x[n - 1];
  terms.push_back(std::make_unique<Potential>(std::vector<double>(n, 0.5), [a, b](double v) { return std::sin(a * v) + b * v * v; }));
  std::vector<double> q(x, x + n);
  double s = 0;
  for (auto &t : terms)
    s += t->energy(q);
  return s;
}

static double function_list(const double *x, int n) {
  std::vector<std::function<double(double)>> fs;
  for (int i = 0; i < n; ++i) // a pointer and an index: the buffer holds no double here
    fs.push_back([x, i](double v) { return x[i] * std::exp(-v * v); });
  struct Big {
    double c[4];
  } big{{x[0], x[1], x[2], x[3]}};
  fs.push_back([big](double v) { return big.c[0] * v + big.c[1] * big.c[2] * std::tanh(v * big.c[3]); });
  double s = 0;
  for (int i = 0; i < (int)fs.size(); ++i)
    s += fs[i](x[(i + 1) % n]);
  return s;
}

int main() {
  check_seed(17);
  for (int t = 0; t < 3; ++t) {
    check_gradient_fn<N, moved_capture>("moved capture");
    check_gradient_fn<N, system_energy>("virtual + std::function");
    check_gradient_fn<N, function_list>("vector of std::function");
  }
  return check_report();
}
