// std::function objects holding lambdas that capture active doubles by value, relocated inside a
// std::vector: the small-object buffer moved by the vector holds a double for these lambdas and
// a pointer for others, and where it is copied nothing tells which. Refused by name (it was a
// silently zero derivative with respect to the captures). A std::function moved right after the
// capture is stored is differentiated (integration/std_function_captures.cpp).
// RUN: not %synthase-cxx -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cxx -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: synthase: in function {{.*}}: the bytes this copy moves are used both as a pointer and as a floating-point value (a union, such as std::function's buffer holding a captured double)
// CHECK: hint: store the value in a variable of one type before copying it
#include <cmath>
#include <functional>
#include <vector>
extern "C" double __enzyme_autodiff(void *, ...);
static double terms(const double *x, int n) {
  std::vector<std::function<double(double)>> fs;
  for (int i = 0; i < n; ++i) {
    double c = x[i];
    fs.push_back([c](double v) { return c * std::exp(-v * v); });
  }
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += fs[i](x[(i + 1) % n]);
  return s;
}
void gradient(const double *x, double *dx, int n) { __enzyme_autodiff((void *)terms, x, dx, n); }
