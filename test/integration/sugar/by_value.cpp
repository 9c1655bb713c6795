// The C++ interface with structs passed by value (split into registers, or copied through memory
// for a large one) and functions returning a class (std::vector through memory, a small struct in
// registers): forward-mode tangents against analytic derivatives and central finite
// differences, reverse mode with a by-value Const struct against the analytic adjoint.
// RUN: %synthase-cxx -std=c++17 -O0 -I%inputs %s -o %t0 && %t0
// RUN: %synthase-cxx -std=c++17 -O1 -I%inputs %s -o %t1 && %t1
// RUN: %synthase-cxx -std=c++17 -O2 -I%inputs %s -o %t2 && %t2
// RUN: %synthase-cxx -std=c++20 -O3 -I%inputs %s -o %t3 && %t3
#include "check.h"
#include <cmath>
#include <enzyme/enzyme>
#include <vector>

struct Pt {
  double x, y;
};
struct Big {
  double a[5];
};

// A two-double struct: passed in two registers.
static double area(Pt p) { return p.x * std::sin(p.y) + p.y * p.y; }
// Forty bytes: passed through a copy in memory.
static double energy(Big b) {
  double s = 0;
  for (int i = 0; i < 5; ++i)
    s += (i + 1) * b.a[i] * b.a[i] * b.a[(i + 1) % 5];
  return s;
}
static double scaled(double k, Pt p) { return k * k * area(p); }

static std::vector<double> squares(const std::vector<double> &v) {
  std::vector<double> r(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    r[i] = v[i] * v[i] + std::sin(v[i]);
  return r;
}
static Pt rotate(const double *th) { return Pt{std::cos(*th) * 2.0, std::sin(*th) * 3.0}; }
static Big spread(const double *x) {
  Big b;
  for (int i = 0; i < 5; ++i)
    b.a[i] = std::exp(0.1 * i * *x);
  return b;
}

static double energy_fd(const double *a, void *) {
  Big b;
  for (int i = 0; i < 5; ++i)
    b.a[i] = a[i];
  return energy(b);
}

int main() {
  // Forward mode, struct in registers: J v against the analytic directional derivative.
  {
    Pt p{0.7, 1.3}, dp{0.4, -0.9};
    double want = dp.x * std::sin(p.y) + dp.y * (p.x * std::cos(p.y) + 2 * p.y);
    double t = enzyme::get<0>(enzyme::autodiff<enzyme::Forward>(area, enzyme::Duplicated<Pt>{p, dp}));
    CHECK_CLOSE(t, want, 1e-14, "Duplicated<Pt> by value: tangent");
    auto both = enzyme::autodiff<enzyme::Forward, enzyme::Duplicated<double>>(area, enzyme::Duplicated<Pt>{p, dp});
    CHECK_CLOSE(enzyme::get<0>(both), area(p), 1e-15, "Duplicated<Pt> by value: primal");
    CHECK_CLOSE(enzyme::get<1>(both), want, 1e-14, "Duplicated<Pt> by value: tangent with primal");
    double tk = enzyme::get<0>(
        enzyme::autodiff<enzyme::Forward>(scaled, enzyme::Duplicated<double>{1.5, 1.0}, enzyme::Const<Pt>{p}));
    CHECK_CLOSE(tk, 2 * 1.5 * area(p), 1e-14, "Const<Pt> by value: tangent of the other argument");
  }
  // Forward mode, struct copied through memory: each direction against central differences.
  {
    Big b{{0.3, -1.1, 0.8, 1.7, -0.4}};
    double g[5];
    check_fd_grad(energy_fd, nullptr, b.a, 5, g);
    for (int k = 0; k < 5; ++k) {
      Big db{};
      db.a[k] = 1.0;
      double t = enzyme::get<0>(enzyme::autodiff<enzyme::Forward>(energy, enzyme::Duplicated<Big>{b, db}));
      CHECK_CLOSE(t, g[k], 1e-7, "Duplicated<Big> by value: direction %d vs FD", k);
    }
  }
  // Reverse mode with a by-value Const struct: the adjoint of the scalar.
  {
    Pt p{0.7, 1.3};
    double d = enzyme::get<0>(enzyme::get<0>(
        enzyme::autodiff<enzyme::Reverse>(scaled, enzyme::Active<double>{1.5}, enzyme::Const<Pt>{p})));
    CHECK_CLOSE(d, 2 * 1.5 * area(p), 1e-14, "reverse, Const<Pt> by value");
  }
  // A std::vector result: its tangent (DuplicatedNoNeed), primal and tangent (Duplicated), and
  // the primal alone (Const).
  {
    std::vector<double> v{0.5, -1.2, 2.0}, dv{1.0, 0.25, -2.0};
    auto t = enzyme::get<0>(enzyme::autodiff<enzyme::Forward, enzyme::DuplicatedNoNeed<std::vector<double>>>(
        squares, enzyme::Duplicated<const std::vector<double> &>(v, dv)));
    CHECK_TRUE(t.size() == 3, "vector tangent has the primal's size");
    for (size_t i = 0; i < 3; ++i)
      CHECK_CLOSE(t[i], (2 * v[i] + std::cos(v[i])) * dv[i], 1e-14, "vector tangent [%zu]", i);
    auto pt = enzyme::autodiff<enzyme::Forward, enzyme::Duplicated<std::vector<double>>>(
        squares, enzyme::Duplicated<const std::vector<double> &>(v, dv));
    for (size_t i = 0; i < 3; ++i) {
      CHECK_CLOSE(enzyme::get<0>(pt)[i], v[i] * v[i] + std::sin(v[i]), 1e-15, "vector primal [%zu]", i);
      CHECK_CLOSE(enzyme::get<1>(pt)[i], (2 * v[i] + std::cos(v[i])) * dv[i], 1e-14, "vector tangent [%zu]", i);
    }
    auto pc = enzyme::get<0>(enzyme::autodiff<enzyme::Forward, enzyme::Const<std::vector<double>>>(
        squares, enzyme::Duplicated<const std::vector<double> &>(v, dv)));
    CHECK_CLOSE(pc[1], v[1] * v[1] + std::sin(v[1]), 1e-15, "vector primal (Const return)");
  }
  // Struct results: in registers, and through memory.
  {
    double th = 0.6, dth = 1.0;
    auto r = enzyme::autodiff<enzyme::Forward, enzyme::Duplicated<Pt>>(rotate,
                                                                       enzyme::Duplicated<const double *>(&th, &dth));
    CHECK_CLOSE(enzyme::get<0>(r).x, 2 * std::cos(th), 1e-15, "Pt result: primal x");
    CHECK_CLOSE(enzyme::get<1>(r).x, -2 * std::sin(th), 1e-14, "Pt result: tangent x");
    CHECK_CLOSE(enzyme::get<1>(r).y, 3 * std::cos(th), 1e-14, "Pt result: tangent y");
    double x = 1.7, dx = 1.0;
    auto b = enzyme::get<0>(enzyme::autodiff<enzyme::Forward, enzyme::DuplicatedNoNeed<Big>>(
        spread, enzyme::Duplicated<const double *>(&x, &dx)));
    for (int i = 0; i < 5; ++i)
      CHECK_CLOSE(b.a[i], 0.1 * i * std::exp(0.1 * i * x), 1e-14, "Big result: tangent [%d]", i);
  }
  return check_report();
}
