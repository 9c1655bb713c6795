// Lambdas converted to function pointers (implicitly, with unary +, and through a variable),
// a generic lambda instantiated for double, and a lambda calling a captured-free helper.
// The conversion goes through the closure's static invoker, which is only a constant function
// once the conversion operator is inlined.
// RUN: %synthase-cxx -O0 -I%inputs %s -o %t0 && %t0
// RUN: %synthase-cxx -O2 -I%inputs %s -o %t2 && %t2
#include "check.h"
#include <cmath>

template <typename R, typename... Args> R __enzyme_autodiff(void *, Args...);
template <typename R, typename... Args> R __enzyme_fwddiff(void *, Args...);

static double helper(double a) { return std::log1p(a * a); }

int main() {
  check_seed(79);
  for (int t = 0; t < 5; ++t) {
    double x = check_uniform(-1.5, 1.5), y = check_uniform(-1, 1);
    double (*lam)(double, double) = [](double a, double b) { return std::sin(a * b) + a * a; };
    CHECK_CLOSE(__enzyme_autodiff<double>((void *)lam, enzyme_out, x, enzyme_const, y), std::cos(x * y) * y + 2 * x,
                1e-14, "lambda via variable, rev");
    CHECK_CLOSE(__enzyme_fwddiff<double>((void *)lam, x, 0.0, y, 1.0), std::cos(x * y) * x, 1e-14,
                "lambda via variable, fwd");
    auto lam2 = +[](double a) { return std::exp(a) * a; };
    CHECK_CLOSE(__enzyme_fwddiff<double>((void *)lam2, x, 1.0), std::exp(x) * (1 + x), 1e-14, "unary+ lambda fwd");
    CHECK_CLOSE(__enzyme_autodiff<double>((void *)lam2, x), std::exp(x) * (1 + x), 1e-14, "unary+ lambda rev");
    CHECK_CLOSE(__enzyme_autodiff((void *)+[](double a) { return helper(a) * a; }, x),
                helper(x) + 2 * x * x / (1 + x * x), 1e-14, "inline lambda calling a helper, rev");
    auto generic = [](auto a) { return a * a * a; };
    double (*gp)(double) = generic;
    CHECK_CLOSE(__enzyme_fwddiff<double>((void *)gp, x, 1.0), 3 * x * x, 1e-14, "generic lambda fwd");
  }
  return check_report();
}
