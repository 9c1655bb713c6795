// The C++ interface <enzyme/enzyme> in reverse mode: Active arguments (a tuple of adjoints),
// ReverseWithPrimal, an explicit return activity, Const arguments by value, reference and
// pointer, Duplicated and DuplicatedNoNeed pointers and references, a void function writing its
// result through a Duplicated pointer (Const return), float and long double. Every adjoint is
// compared with the analytic derivative, and with forward mode on the same function.
// RUN: %synthase-cxx -std=c++17 -O0 -I%inputs %s -o %t0 && %t0
// RUN: %synthase-cxx -std=c++17 -O2 -I%inputs %s -o %t2 && %t2
// RUN: %synthase-cxx -std=c++20 -O0 -I%inputs %s -o %t3 && %t3
// RUN: %synthase-cxx -std=c++20 -O2 -I%inputs %s -o %t4 && %t4
// RUN: %synthase-cxx -std=c++20 -O3 -march=native -I%inputs %s -o %t5 && %t5
#include "check.h"
#include <cmath>
#include <enzyme/enzyme>

static double f(double x, double y) { return x * std::sin(y) + x * x * y; }
static double dfdx(double x, double y) { return std::sin(y) + 2 * x * y; }
static double dfdy(double x, double y) { return x * std::cos(y) + x * x; }

static double square(double x) { return x * x; }
static float cubef(float x) { return x * x * x; }
static long double expl_(long double x) { return std::exp(x) * x; }

static double scale_ref(double x, const double &a) { return a * x * x; }
static double scale_ptr(double x, const double *a) { return *a * std::exp(x); }
static double bump(double x, double &counter) { return x * (counter++); }

// Memory arguments: the adjoints are added into the shadows.
static double norm2(const double *v, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += v[i] * v[i];
  return std::sqrt(s);
}
static double ref_prod(const double &a, const double &b) { return a * b * b; }
static void write_sin(double x, double *out) { *out = std::sin(x) * x; }

int main() {
  check_seed(41);
  for (int t = 0; t < 4; ++t) {
    double x = check_uniform(-1.5, 1.5), y = check_uniform(-1.5, 1.5);

    // Active arguments: tuple<tuple<dx, dy>>.
    auto r = enzyme::autodiff<enzyme::Reverse>(f, enzyme::Active{x}, enzyme::Active<double>(y));
    CHECK_CLOSE(enzyme::get<0>(enzyme::get<0>(r)), dfdx(x, y), 1e-14, "Active x");
    CHECK_CLOSE(enzyme::get<1>(enzyme::get<0>(r)), dfdy(x, y), 1e-14, "Active y");
    auto [gx, gy] = enzyme::get<0>(r); // structured bindings
    CHECK_CLOSE(gx + gy, dfdx(x, y) + dfdy(x, y), 1e-14, "structured binding");

    // The same with the return activity spelled out.
    enzyme::tuple<enzyme::tuple<double>> sq =
        enzyme::autodiff<enzyme::Reverse, enzyme::Active<double>>(square, enzyme::Active{x});
    CHECK_CLOSE(enzyme::get<0>(enzyme::get<0>(sq)), 2 * x, 1e-15, "explicit Active return");

    // ReverseWithPrimal: tuple<tuple<adjoints...>, primal>.
    enzyme::tuple<enzyme::tuple<double, double>, double> rp =
        enzyme::autodiff<enzyme::ReverseWithPrimal>(f, enzyme::Active{x}, enzyme::Active{y});
    CHECK_CLOSE(enzyme::get<1>(rp), f(x, y), 1e-15, "ReverseWithPrimal primal");
    CHECK_CLOSE(enzyme::get<0>(enzyme::get<0>(rp)), dfdx(x, y), 1e-14, "ReverseWithPrimal dx");
    CHECK_CLOSE(enzyme::get<1>(enzyme::get<0>(rp)), dfdy(x, y), 1e-14, "ReverseWithPrimal dy");
    auto rp2 = enzyme::autodiff<enzyme::ReverseWithPrimal, enzyme::Active<double>>(square, enzyme::Active{x});
    CHECK_CLOSE(enzyme::get<1>(rp2), x * x, 1e-15, "ReverseWithPrimal explicit primal");
    CHECK_CLOSE(enzyme::get<0>(enzyme::get<0>(rp2)), 2 * x, 1e-15, "ReverseWithPrimal explicit dx");

    // Const arguments: by value, by reference, by pointer; a non-const reference written to.
    auto c1 = enzyme::autodiff<enzyme::Reverse>(f, enzyme::Active{x}, enzyme::Const{y});
    CHECK_CLOSE(enzyme::get<0>(enzyme::get<0>(c1)), dfdx(x, y), 1e-14, "Const by value");
    auto c2 = enzyme::autodiff<enzyme::Reverse>(scale_ref, enzyme::Active{x}, enzyme::Const<const double &>(y));
    CHECK_CLOSE(enzyme::get<0>(enzyme::get<0>(c2)), 2 * y * x, 1e-14, "Const<const double&>");
    auto c3 = enzyme::autodiff<enzyme::Reverse>(scale_ptr, enzyme::Active{x}, enzyme::Const<const double *>(&y));
    CHECK_CLOSE(enzyme::get<0>(enzyme::get<0>(c3)), y * std::exp(x), 1e-14, "Const<const double*>");
    double counter = y;
    auto c4 = enzyme::autodiff<enzyme::Reverse>(bump, enzyme::Active{x}, enzyme::Const<double &>(counter));
    CHECK_CLOSE(enzyme::get<0>(enzyme::get<0>(c4)), y, 1e-15, "Const<double&> value");
    CHECK_CLOSE(counter, y + 1, 1e-15, "Const<double&> side effect ran once");
    // Const first: the adjoints of the Active ones only.
    auto c5 = enzyme::autodiff<enzyme::Reverse>(f, enzyme::Const{x}, enzyme::Active{y});
    CHECK_CLOSE(enzyme::get<0>(enzyme::get<0>(c5)), dfdy(x, y), 1e-14, "Const then Active");

    // Duplicated pointer: gradient of the norm added into dv.
    double v[3] = {x, y, 0.75}, dv[3] = {0, 0, 0};
    auto none = enzyme::autodiff<enzyme::Reverse>(norm2, enzyme::Duplicated<const double *>(v, dv), enzyme::Const{3});
    (void)none;
    double nv = norm2(v, 3);
    for (int i = 0; i < 3; ++i)
      CHECK_CLOSE(dv[i], v[i] / nv, 1e-14, "Duplicated<const double*> d/dv[%d]", i);
    // CTAD on pointers, and accumulation into a non-zero shadow.
    enzyme::autodiff<enzyme::Reverse>(norm2, enzyme::Duplicated{(const double *)v, (const double *)dv},
                                      enzyme::Const{3});
    for (int i = 0; i < 3; ++i)
      CHECK_CLOSE(dv[i], 2 * v[i] / nv, 1e-14, "Duplicated accumulates d/dv[%d]", i);
    // DuplicatedNoNeed.
    double dw[3] = {0, 0, 0};
    enzyme::autodiff<enzyme::Reverse>(norm2, enzyme::DuplicatedNoNeed<const double *>(v, dw), enzyme::Const{3});
    for (int i = 0; i < 3; ++i)
      CHECK_CLOSE(dw[i], v[i] / nv, 1e-14, "DuplicatedNoNeed d/dv[%d]", i);

    // Duplicated references.
    double da = 0, db = 0;
    enzyme::autodiff<enzyme::Reverse>(ref_prod, enzyme::Duplicated<const double &>(x, da),
                                      enzyme::Duplicated<const double &>(y, db));
    CHECK_CLOSE(da, y * y, 1e-14, "Duplicated<const double&> a");
    CHECK_CLOSE(db, 2 * x * y, 1e-14, "Duplicated<const double&> b");

    // A void function: Const return, the output's seed in its shadow.
    double out = 0, dout = 1;
    auto w = enzyme::autodiff<enzyme::Reverse>(write_sin, enzyme::Active{x}, enzyme::Duplicated{&out, &dout});
    CHECK_CLOSE(enzyme::get<0>(enzyme::get<0>(w)), std::cos(x) * x + std::sin(x), 1e-14, "void, out seed");
    CHECK_CLOSE(out, std::sin(x) * x, 1e-15, "void, primal written");
    // A float result marked Const contributes nothing.
    auto z = enzyme::autodiff<enzyme::Reverse, enzyme::Const<double>>(f, enzyme::Active{x}, enzyme::Active{y});
    CHECK_CLOSE(enzyme::get<0>(enzyme::get<0>(z)), 0, 0, "Const return dx");
    CHECK_CLOSE(enzyme::get<1>(enzyme::get<0>(z)), 0, 0, "Const return dy");

    // Other float types.
    float xf = (float)x;
    auto rf = enzyme::autodiff<enzyme::Reverse>(cubef, enzyme::Active{xf});
    CHECK_CLOSE(enzyme::get<0>(enzyme::get<0>(rf)), 3 * xf * xf, 1e-6, "float");
    long double xl = x;
    auto rl = enzyme::autodiff<enzyme::ReverseWithPrimal>(expl_, enzyme::Active{xl});
    CHECK_CLOSE(enzyme::get<0>(enzyme::get<0>(rl)), std::exp(xl) * (1 + xl), 1e-17, "long double");
    CHECK_CLOSE(enzyme::get<1>(rl), std::exp(xl) * xl, 1e-18, "long double primal");

    // Forward mode agrees with reverse mode on the same function.
    double fx = enzyme::get<0>(enzyme::autodiff<enzyme::Forward>(f, enzyme::Duplicated{x, 1.0}, enzyme::Duplicated{y, 0.0}));
    double fy = enzyme::get<0>(enzyme::autodiff<enzyme::Forward>(f, enzyme::Duplicated{x, 0.0}, enzyme::Duplicated{y, 1.0}));
    CHECK_CLOSE(fx, enzyme::get<0>(enzyme::get<0>(r)), 1e-15, "forward = reverse, x");
    CHECK_CLOSE(fy, enzyme::get<1>(enzyme::get<0>(r)), 1e-15, "forward = reverse, y");
  }
  return check_report();
}
