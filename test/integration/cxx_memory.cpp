// C++ allocation inside differentiated code: new/delete of a scalar, new[]/delete[] of arrays,
// a std::vector<double> built, grown (push_back) and destroyed inside the function, a
// std::unique_ptr-owned buffer, a small class with a destructor. Reverse and forward vs. FD.
// RUN: %synthase-cxx -O0 -I%inputs %s -o %t0 && %t0
// RUN: %synthase-cxx -O2 -I%inputs %s -o %t2 && %t2
// RUN: %synthase-cxx -O2 -fno-exceptions -I%inputs %s -o %t3 && %t3
#include "check.h"
#include <cmath>
#include <memory>
#include <vector>

#define N 6

static double with_new(const double *x, int n) {
  double *acc = new double(0.0);
  double *tmp = new double[n];
  for (int i = 0; i < n; ++i)
    tmp[i] = std::sin(x[i]) * x[(i + 1) % n];
  for (int i = 0; i < n; ++i)
    *acc += tmp[i] * tmp[i];
  double r = *acc;
  delete[] tmp;
  delete acc;
  return r;
}

static double with_vector(const double *x, int n) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i)
    v.push_back(x[i] * x[i]);
  for (int i = 0; i < n; ++i)
    v.push_back(v[i] * x[n - 1 - i]);
  double s = 0;
  for (double e : v)
    s += std::sqrt(1 + e * e);
  return s;
}

struct Buffer {
  explicit Buffer(int n) : data(new double[n]), n(n) {}
  ~Buffer() { delete[] data; }
  double *data;
  int n;
};

static double with_raii(const double *x, int n) {
  Buffer b(n);
  std::unique_ptr<double[]> u(new double[n]);
  for (int i = 0; i < n; ++i) {
    b.data[i] = std::exp(x[i] * 0.5);
    u[i] = b.data[i] * x[i];
  }
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += u[i] * b.data[(i + 2) % n];
  return s;
}

int main() {
  check_seed(73);
  for (int t = 0; t < 4; ++t) {
    check_gradient_fn<N, with_new>("new/delete");
    check_gradient_fn<N, with_vector>("std::vector");
    check_gradient_fn<N, with_raii>("raii");
  }
  return check_report();
}
