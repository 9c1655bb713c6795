// C++: function templates instantiated for float/double/long double, a templated entry point
// (typed, C++-mangled), overloaded entry points, member
// functions called through a free function, operator overloading on a small vector class,
// std::vector / std::array data passed by pointer, const references, <cmath> overloads,
// namespaces and overloaded functions selected with static_cast.
// RUN: %synthase-cxx -O0 -I%inputs %s -o %t0 && %t0
// RUN: %synthase-cxx -O2 -I%inputs %s -o %t2 && %t2
// RUN: %synthase-cxx -O2 -std=c++20 -I%inputs %s -o %t3 && %t3
// RUN: %synthase-cxx -O0 -fno-exceptions -I%inputs %s -o %t4 && %t4
#include "check.h"
#include <array>
#include <cmath>
#include <vector>

// Templated entry points: every instance is recognised by its (mangled) name.
template <typename R, typename... Args> R __enzyme_autodiff(void *, Args...);
template <typename R, typename... Args> R __enzyme_fwddiff(void *, Args...);
// Overloaded, typed entry points.
float __enzyme_autodiff_t(void *, float);
long double __enzyme_autodiff_t(void *, long double);

template <typename T> T tpoly(T x) { return T(3) * x * x * x - std::sin(x) * x + T(0.5) / (T(1) + x * x); }
template <typename T> long double tpoly_d(T xv) {
  long double x = xv, q = 1 + x * x;
  return 9 * x * x - cosl(x) * x - sinl(x) - x / (q * q);
}

namespace geo {
struct Vec3 {
  double x, y, z;
  Vec3 operator+(const Vec3 &o) const { return {x + o.x, y + o.y, z + o.z}; }
  Vec3 operator*(double s) const { return {x * s, y * s, z * s}; }
  double dot(const Vec3 &o) const { return x * o.x + y * o.y + z * o.z; }
  Vec3 cross(const Vec3 &o) const { return {y * o.z - z * o.y, z * o.x - x * o.z, x * o.y - y * o.x}; }
};
double triple(const Vec3 *a, const Vec3 *b, const Vec3 *c) { return a->dot(b->cross(*c) + (*a) * 0.5); }
} // namespace geo

class Model {
public:
  Model(double w, double b) : w_(w), b_(b) {}
  double predict(double x) const { return std::tanh(w_ * x + b_); }
  double loss(const double *xs, const double *ys, int n) const {
    double s = 0;
    for (int i = 0; i < n; ++i) {
      double e = predict(xs[i]) - ys[i];
      s += e * e;
    }
    return s / n;
  }

private:
  double w_, b_;
};
// member function through a free function; the model's parameters are active through the shadow
static double model_loss(const Model *m, const double *xs, const double *ys, int n) { return m->loss(xs, ys, n); }

static double overloaded(double x) { return x * x; }
static double overloaded(double x, double y) { return x * y; }

static double by_ref(const double &x, const double &y) { return std::pow(x, 3) * std::exp(y); }

static double vec_loss(const double *v, std::size_t n) {
  double s = 0;
  for (std::size_t i = 0; i < n; ++i)
    s += std::log1p(v[i] * v[i]);
  return s;
}

int main() {
  check_seed(71);
  for (int t = 0; t < 5; ++t) {
    double x = check_uniform(-1.5, 1.5), y = check_uniform(-1, 1);
    // templates, templated entry point
    CHECK_CLOSE(__enzyme_autodiff<double>((void *)tpoly<double>, x), tpoly_d(x), 1e-13, "template double rev");
    CHECK_CLOSE(__enzyme_fwddiff<double>((void *)tpoly<double>, x, 1.0), tpoly_d(x), 1e-13, "template double fwd");
    CHECK_CLOSE(__enzyme_autodiff_t((void *)tpoly<float>, (float)x), tpoly_d((float)x), 2e-6, "template float rev");
    CHECK_CLOSE(__enzyme_autodiff_t((void *)tpoly<long double>, (long double)x), tpoly_d((long double)x), 1e-17,
                "template long double rev");
    CHECK_CLOSE(__enzyme_autodiff((void *)tpoly<double>, x), tpoly_d(x), 1e-13, "template via C entry point");

    // overloads picked with static_cast
    CHECK_CLOSE(__enzyme_autodiff<double>((void *)static_cast<double (*)(double)>(overloaded), x), 2 * x, 1e-15,
                "overload 1");
    CHECK_CLOSE(__enzyme_autodiff<double>((void *)static_cast<double (*)(double, double)>(overloaded), x,
                                          enzyme_const, y),
                y, 1e-15, "overload 2");

    // const references (pointers at the IR level: value and shadow by address)
    double dxr = 0, dyr = 0;
    __enzyme_autodiff<void>((void *)by_ref, &x, &dxr, &y, &dyr);
    CHECK_CLOSE(dxr, 3 * x * x * std::exp(y), 1e-14, "const ref dx");
    CHECK_CLOSE(dyr, x * x * x * std::exp(y), 1e-14, "const ref dy");

    // member functions through a free function, model parameters active
    const int n = 6;
    std::vector<double> xs(n), ys(n);
    for (int i = 0; i < n; ++i) {
      xs[i] = check_uniform(-1, 1);
      ys[i] = check_uniform(-0.5, 0.5);
    }
    double w = check_uniform(0.5, 1.5), b = check_uniform(-0.5, 0.5);
    Model m(w, b), dm(0, 0);
    __enzyme_autodiff<void>((void *)model_loss, enzyme_dup, &m, &dm, enzyme_const, xs.data(), enzyme_const,
                            ys.data(), enzyme_const, n);
    double gw = 0, gb = 0;
    for (int i = 0; i < n; ++i) {
      double p = std::tanh(w * xs[i] + b), e = p - ys[i], s = 2 * e * (1 - p * p) / n;
      gw += s * xs[i];
      gb += s;
    }
    // read the shadow's private fields through a mirror struct
    struct Mirror {
      double w, b;
    } dmm;
    memcpy(&dmm, &dm, sizeof dmm);
    CHECK_CLOSE(dmm.w, gw, 1e-14, "member: d w");
    CHECK_CLOSE(dmm.b, gb, 1e-14, "member: d b");

    // std::vector / std::array data by pointer
    std::vector<double> v(7), dv(7, 0.0);
    for (auto &e : v)
      e = check_uniform(-2, 2);
    __enzyme_autodiff<void>((void *)vec_loss, v.data(), dv.data(), v.size());
    for (std::size_t i = 0; i < v.size(); ++i)
      CHECK_CLOSE(dv[i], 2 * v[i] / (1 + v[i] * v[i]), 1e-14, "std::vector d[%zu]", i);
    std::array<double, 7> tv{};
    for (auto &e : tv)
      e = check_uniform(-1, 1);
    double tf = __enzyme_fwddiff<double>((void *)vec_loss, v.data(), tv.data(), v.size());
    CHECK_CLOSE(tf, check_dot(dv.data(), tv.data(), 7), 1e-14, "std::array tangent");

    // operator overloading, namespaces
    geo::Vec3 a{x, y, 0.5}, bb{y, 1.0, x}, c{0.3, x * y, -y};
    geo::Vec3 da{0, 0, 0}, db{0, 0, 0}, dc{0, 0, 0};
    __enzyme_autodiff<void>((void *)geo::triple, &a, &da, &bb, &db, &c, &dc);
    // d/da (a . (b x c) + 0.5 |a|^2) = b x c + a
    geo::Vec3 bxc = bb.cross(c);
    CHECK_CLOSE(da.x, bxc.x + a.x, 1e-14, "triple da.x");
    CHECK_CLOSE(da.y, bxc.y + a.y, 1e-14, "triple da.y");
    CHECK_CLOSE(da.z, bxc.z + a.z, 1e-14, "triple da.z");
    geo::Vec3 cxa = c.cross(a); // d/db = c x a
    CHECK_CLOSE(db.x, cxa.x, 1e-14, "triple db.x");
    CHECK_CLOSE(db.y, cxa.y, 1e-14, "triple db.y");
    CHECK_CLOSE(db.z, cxa.z, 1e-14, "triple db.z");
    geo::Vec3 axb = a.cross(bb); // d/dc = a x b
    CHECK_CLOSE(dc.x, axb.x, 1e-14, "triple dc.x");
    CHECK_CLOSE(dc.y, axb.y, 1e-14, "triple dc.y");
    CHECK_CLOSE(dc.z, axb.z, 1e-14, "triple dc.z");
    geo::Vec3 ta{1, 0, 0}, tb{0, 0, 0}, tc{0, 0, 0};
    CHECK_CLOSE(__enzyme_fwddiff<double>((void *)geo::triple, &a, &ta, &bb, &tb, &c, &tc), da.x, 1e-14,
                "triple fwd along a.x");
  }
  return check_report();
}
