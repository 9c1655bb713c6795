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

template <double (*F)(const double *, int)> static double fdw(const double *x, void *) { return F(x, N); }

template <double (*F)(const double *, int)> static void check_fn(const char *name) {
  double x[N], dx[N], g[N], v[N];
  check_fill(x, N, -1, 1);
  for (int i = 0; i < N; ++i)
    dx[i] = 0.0;
  __enzyme_autodiff((void *)F, x, dx, N);
  check_fd_grad(fdw<F>, nullptr, x, N, g);
  for (int i = 0; i < N; ++i)
    CHECK_CLOSE(dx[i], g[i], 1e-7, "rev %s d[%d] vs FD", name, i);
  check_fill(v, N, -1, 1);
  double t = __enzyme_fwddiff((void *)F, x, v, N);
  CHECK_CLOSE(t, check_dot(g, v, N), 1e-7, "fwd %s vs FD", name);
  CHECK_CLOSE(t, check_dot(dx, v, N), 1e-12, "%s dot test", name);
}

int main() {
  check_seed(73);
  for (int t = 0; t < 4; ++t) {
    check_fn<with_new>("new/delete");
    check_fn<with_vector>("std::vector");
    check_fn<with_raii>("raii");
  }
  return check_report();
}
