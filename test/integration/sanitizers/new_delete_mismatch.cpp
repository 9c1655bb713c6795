// Found by the sanitizer runs (issue 8): memory the primal allocates with new[] (and releases
// with delete[]) is released with free() in the reverse sweep: AddressSanitizer reports
// alloc-dealloc-mismatch (operator new [] vs free) at -O0 and -O2.
// RUN: %synthase-cxx -O0 -g %sanflags %s -o %t0 -lm
// RUN: %sanenv %t0
// RUN: %synthase-cxx -O2 -g %sanflags %s -o %t2 -lm
// RUN: %sanenv %t2
#include <cmath>
#include <cstdio>
extern "C" double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

static double f(const double *x, int n) {
  double *tmp = new double[n];
  for (int i = 0; i < n; ++i)
    tmp[i] = std::sin(x[i]);
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += tmp[i] * tmp[i];
  delete[] tmp;
  return s;
}

int main() {
  double x[3] = {0.5, 1.0, 1.5}, dx[3] = {0, 0, 0};
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, 3);
  int bad = 0;
  for (int i = 0; i < 3; ++i)
    bad |= std::fabs(dx[i] - std::sin(2 * x[i])) > 1e-12;
  std::printf("%g %g %g\n", dx[0], dx[1], dx[2]);
  return bad;
}
