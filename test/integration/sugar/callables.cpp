// What <enzyme/enzyme> differentiates: a function, a function pointer held in a variable, a
// function template instance, a lambda with captures (the captures are constants), a functor
// struct, a generic lambda; and enzyme::primal_call. Both modes, against analytic derivatives.
// RUN: %synthase-cxx -std=c++17 -O0 -I%inputs %s -o %t0 && %t0
// RUN: %synthase-cxx -std=c++17 -O2 -I%inputs %s -o %t2 && %t2
// RUN: %synthase-cxx -std=c++20 -O0 -I%inputs %s -o %t3 && %t3
// RUN: %synthase-cxx -std=c++20 -O2 -I%inputs %s -o %t4 && %t4
// RUN: %synthase-cxx -std=c++20 -O3 -march=native -I%inputs %s -o %t5 && %t5
#include "check.h"
#include <cmath>
#include <enzyme/enzyme>

template <typename T> T poly(T x, T c) { return c * x * x * x + std::sin(x); }

struct Spring {
  double k, rest;
  double operator()(double x) const { return 0.5 * k * (x - rest) * (x - rest); }
};

struct Weighted {
  const double *w;
  int n;
  double operator()(const double *x) const {
    double s = 0;
    for (int i = 0; i < n; ++i)
      s += w[i] * x[i] * x[i];
    return s;
  }
};

static double hyp(double x, double y) { return std::hypot(x, y); }

int main() {
  check_seed(47);
  for (int t = 0; t < 4; ++t) {
    double x = check_uniform(-1.5, 1.5), c = check_uniform(0.5, 2);

    // A template function instance, named explicitly.
    auto r = enzyme::autodiff<enzyme::Reverse>(poly<double>, enzyme::Active{x}, enzyme::Const{c});
    double want = 3 * c * x * x + std::cos(x);
    CHECK_CLOSE(enzyme::get<0>(enzyme::get<0>(r)), want, 1e-14, "template rev");
    CHECK_CLOSE(enzyme::get<0>(enzyme::autodiff<enzyme::Forward>(poly<double>, enzyme::Duplicated{x, 1.0}, enzyme::Const{c})),
                want, 1e-14, "template fwd");
    auto rf = enzyme::autodiff<enzyme::Reverse>(poly<float>, enzyme::Active{(float)x}, enzyme::Const{(float)c});
    CHECK_CLOSE(enzyme::get<0>(enzyme::get<0>(rf)), want, 1e-5, "template<float> rev");

    // A function pointer in a variable.
    double (*fp)(double, double) = hyp;
    double y = check_uniform(0.5, 1.5);
    auto rh = enzyme::autodiff<enzyme::Reverse>(fp, enzyme::Active{x}, enzyme::Active{y});
    CHECK_CLOSE(enzyme::get<0>(enzyme::get<0>(rh)), x / std::hypot(x, y), 1e-14, "function pointer d/dx");
    CHECK_CLOSE(enzyme::get<1>(enzyme::get<0>(rh)), y / std::hypot(x, y), 1e-14, "function pointer d/dy");

    // A lambda capturing by value and by reference: the captures are constants.
    double a = c, b = 0.25;
    auto lam = [a, &b](double v) { return a * std::exp(v) + b * v * v; };
    auto rl = enzyme::autodiff<enzyme::ReverseWithPrimal>(lam, enzyme::Active{x});
    CHECK_CLOSE(enzyme::get<0>(enzyme::get<0>(rl)), a * std::exp(x) + 2 * b * x, 1e-14, "lambda rev");
    CHECK_CLOSE(enzyme::get<1>(rl), lam(x), 1e-15, "lambda primal");
    auto tl = enzyme::autodiff<enzyme::Forward, enzyme::Duplicated<double>>(lam, enzyme::Duplicated{x, 1.0});
    CHECK_CLOSE(enzyme::get<1>(tl), a * std::exp(x) + 2 * b * x, 1e-14, "lambda fwd");
    CHECK_CLOSE(enzyme::get<0>(tl), lam(x), 1e-15, "lambda fwd primal");
    // A capture-free lambda given as an rvalue.
    auto r0 = enzyme::autodiff<enzyme::Reverse>([](double v, double w) { return v * w * w; }, enzyme::Active{x},
                                                enzyme::Active{y});
    CHECK_CLOSE(enzyme::get<1>(enzyme::get<0>(r0)), 2 * x * y, 1e-14, "temporary lambda");
    // A generic lambda.
    auto gen = [](auto v) { return v * v * v; };
    auto rg = enzyme::autodiff<enzyme::Reverse>(gen, enzyme::Active{x});
    CHECK_CLOSE(enzyme::get<0>(enzyme::get<0>(rg)), 3 * x * x, 1e-14, "generic lambda");

    // A functor struct, const and not.
    const Spring s{c, 0.3};
    auto rs = enzyme::autodiff<enzyme::Reverse>(s, enzyme::Active{x});
    CHECK_CLOSE(enzyme::get<0>(enzyme::get<0>(rs)), c * (x - 0.3), 1e-14, "functor rev");
    Spring s2{2 * c, -0.1};
    CHECK_CLOSE(enzyme::get<0>(enzyme::autodiff<enzyme::Forward>(s2, enzyme::Duplicated{x, 1.0})), 2 * c * (x + 0.1),
                1e-14, "functor fwd");
    // A functor over memory: a Duplicated pointer argument.
    double w[3], xs[3], dxs[3] = {0, 0, 0}, v[3];
    check_fill(w, 3, 0, 1);
    check_fill(xs, 3, -1, 1);
    check_fill(v, 3, -1, 1);
    Weighted q{w, 3};
    enzyme::autodiff<enzyme::Reverse>(q, enzyme::Duplicated<const double *>(xs, dxs));
    for (int i = 0; i < 3; ++i)
      CHECK_CLOSE(dxs[i], 2 * w[i] * xs[i], 1e-14, "functor gradient [%d]", i);
    double jv = enzyme::get<0>(enzyme::autodiff<enzyme::Forward>(q, enzyme::Duplicated<const double *>(xs, v)));
    CHECK_CLOSE(jv, check_dot(dxs, v, 3), 1e-14, "functor forward = reverse");

    // primal_call: the function on the wrapped values.
    CHECK_CLOSE(enzyme::primal_call(hyp, enzyme::Active{x}, enzyme::Const{y}), std::hypot(x, y), 0, "primal_call");
    CHECK_CLOSE(enzyme::primal_call(q, enzyme::Duplicated<const double *>(xs, dxs)), q(xs), 0, "primal_call functor");
  }
  return check_report();
}
