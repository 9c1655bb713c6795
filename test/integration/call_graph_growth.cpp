// A chain of functions each calling the previous two (g11 reaches g0 through 144 call paths),
// called through function pointers from an initializer list and from a table in a loop. Inlining
// every call brought hundreds of copies of each body; with the reverse sweep's slot placement
// scanning a block per slot, an -O2 compile of 16 such functions ran for more than 14 minutes.
// Callees called from several places whose inlined body is large now keep a derivative of their
// own past a volume budget (docs/design.md, inlining). Gradients against central differences,
// forward against reverse.
// RUN: %synthase-cxx -O0 -I%inputs %s -o %t0 && %t0
// RUN: %synthase-cxx -O2 -I%inputs %s -o %t2 && %t2
#include "check.h"
#include <cmath>
#include <initializer_list>

#define N 3

typedef double (*Fn)(double);
static double g0(double x) { double s = x; for (int k = 0; k < 3; k++) s = std::sin(0.1*s) + x * s * 0.01; return s; }
static double g1(double x) { double s = x; for (int k = 0; k < 4; k++) s = std::cos(0.1*s) + x * s * 0.01; return s; }
static double g2(double x) { double s = x; for (int k = 0; k < 5; k++) s = std::exp(0.1*s) + x * s * 0.01; s += 0.1 * g1(0.5 * x) * g0(x); return s; }
static double g3(double x) { double s = x; for (int k = 0; k < 6; k++) s = std::tanh(0.1*s) + x * s * 0.01; s += 0.1 * g2(0.5 * x) * g1(x); return s; }
static double g4(double x) { double s = x; for (int k = 0; k < 3; k++) s = std::atan(0.1*s) + x * s * 0.01; s += 0.1 * g3(0.5 * x) * g2(x); return s; }
static double g5(double x) { double s = x; for (int k = 0; k < 4; k++) s = std::log1p(0.1*s*s) + x * s * 0.01; s += 0.1 * g4(0.5 * x) * g3(x); return s; }
static double g6(double x) { double s = x; for (int k = 0; k < 5; k++) s = std::sin(0.1*s) + x * s * 0.01; s += 0.1 * g5(0.5 * x) * g4(x); return s; }
static double g7(double x) { double s = x; for (int k = 0; k < 6; k++) s = std::cos(0.1*s) + x * s * 0.01; s += 0.1 * g6(0.5 * x) * g5(x); return s; }
static double g8(double x) { double s = x; for (int k = 0; k < 3; k++) s = std::exp(0.1*s) + x * s * 0.01; s += 0.1 * g7(0.5 * x) * g6(x); return s; }
static double g9(double x) { double s = x; for (int k = 0; k < 4; k++) s = std::tanh(0.1*s) + x * s * 0.01; s += 0.1 * g8(0.5 * x) * g7(x); return s; }
static double g10(double x) { double s = x; for (int k = 0; k < 5; k++) s = std::atan(0.1*s) + x * s * 0.01; s += 0.1 * g9(0.5 * x) * g8(x); return s; }
static double g11(double x) { double s = x; for (int k = 0; k < 6; k++) s = std::log1p(0.1*s*s) + x * s * 0.01; s += 0.1 * g10(0.5 * x) * g9(x); return s; }

static double through_list(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double v = x[i];
    for (Fn fn : {g11, g10, g7, g3})
      v = 0.5 * v + 0.1 * fn(v);
    s += v * v;
  }
  return s;
}

static Fn table[] = {g11, g9, g7, g5, g2};
static double through_table(const double *x, int n) {
  double s = 0;
  for (int k = 0; k < 5; k++)
    for (int i = 0; i < n; i++)
      s += table[k](0.3 * x[i]) * x[(i + k) % n];
  return s;
}

int main() {
  check_seed(5);
  check_gradient_fn<N, through_list>("initializer list of function pointers");
  check_gradient_fn<N, through_table>("table of function pointers");
  return check_report();
}
