// The C++ interface <enzyme/enzyme> in forward mode: Duplicated arguments by value, pointer and
// reference, the tangent alone (the default for a float result, and DuplicatedNoNeed), primal and
// tangent (Duplicated return), the primal alone (Const return), Const arguments. Compared with
// analytic derivatives, with central finite differences, and with reverse mode.
// RUN: %synthase-cxx -std=c++17 -O0 -I%inputs %s -o %t0 && %t0
// RUN: %synthase-cxx -std=c++17 -O2 -I%inputs %s -o %t2 && %t2
// RUN: %synthase-cxx -std=c++20 -O0 -I%inputs %s -o %t3 && %t3
// RUN: %synthase-cxx -std=c++20 -O2 -I%inputs %s -o %t4 && %t4
// RUN: %synthase-cxx -std=c++20 -O3 -march=native -I%inputs %s -o %t5 && %t5
#include "check.h"
#include <cmath>
#include <enzyme/enzyme>

static double g(double x, double y) { return std::exp(x * y) + std::log1p(x * x) * y; }
static double dgdx(double x, double y) { return y * std::exp(x * y) + 2 * x * y / (1 + x * x); }
static double dgdy(double x, double y) { return x * std::exp(x * y) + std::log1p(x * x); }
static double g_fd_x(double x, void *c) { return g(x, *(double *)c); }

static float gf(const float &x) { return x * x; }
static float gp(const float *x) { return *x * *x * *x; }

// y = A x; returns the dot product with itself.
static double quad(const double *a, const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) {
    double r = 0;
    for (int j = 0; j < n; ++j)
      r += a[i * n + j] * x[j];
    s += r * r;
  }
  return s;
}
static void scale_into(double k, const double *x, double *y, int n) {
  for (int i = 0; i < n; ++i)
    y[i] = k * x[i] * x[i];
}

int main() {
  check_seed(43);
  for (int t = 0; t < 4; ++t) {
    double x = check_uniform(-1, 1), y = check_uniform(-1, 1);
    double vx = check_uniform(-1, 1), vy = check_uniform(-1, 1);
    double want = dgdx(x, y) * vx + dgdy(x, y) * vy;

    // Default for a float result: tuple<tangent>.
    enzyme::tuple<double> t1 =
        enzyme::autodiff<enzyme::Forward>(g, enzyme::Duplicated{x, vx}, enzyme::Duplicated{y, vy});
    CHECK_CLOSE(enzyme::get<0>(t1), want, 1e-14, "tangent (default return)");
    double yy = y;
    CHECK_CLOSE(enzyme::get<0>(enzyme::autodiff<enzyme::Forward>(g, enzyme::Duplicated{x, 1.0}, enzyme::Const{y})),
                check_fd(g_fd_x, &yy, x), 1e-8, "tangent vs FD");
    // DuplicatedNoNeed return: the tangent.
    auto t2 = enzyme::autodiff<enzyme::Forward, enzyme::DuplicatedNoNeed<double>>(g, enzyme::Duplicated{x, vx},
                                                                                 enzyme::Duplicated{y, vy});
    CHECK_CLOSE(enzyme::get<0>(t2), want, 1e-14, "DuplicatedNoNeed return");
    // Duplicated return: tuple<primal, tangent>.
    enzyme::tuple<double, double> t3 = enzyme::autodiff<enzyme::Forward, enzyme::Duplicated<double>>(
        g, enzyme::Duplicated{x, vx}, enzyme::Duplicated{y, vy});
    CHECK_CLOSE(enzyme::get<0>(t3), g(x, y), 1e-15, "Duplicated return: primal");
    CHECK_CLOSE(enzyme::get<1>(t3), want, 1e-14, "Duplicated return: tangent");
    // Const return: tuple<primal>.
    auto t4 = enzyme::autodiff<enzyme::Forward, enzyme::Const<double>>(g, enzyme::Duplicated{x, vx},
                                                                      enzyme::Duplicated{y, vy});
    CHECK_CLOSE(enzyme::get<0>(t4), g(x, y), 1e-15, "Const return: primal");

    // Reverse mode on the same function: the dot-product test.
    auto r = enzyme::autodiff<enzyme::Reverse>(g, enzyme::Active{x}, enzyme::Active{y});
    CHECK_CLOSE(enzyme::get<0>(t1),
                enzyme::get<0>(enzyme::get<0>(r)) * vx + enzyme::get<1>(enzyme::get<0>(r)) * vy, 1e-14,
                "forward = reverse");

    // References and pointers.
    float xf = (float)x, one = 1.0f;
    CHECK_CLOSE(enzyme::get<0>(enzyme::autodiff<enzyme::Forward>(gf, enzyme::Duplicated<const float &>(xf, one))),
                2 * xf, 1e-6, "Duplicated<const float&>");
    CHECK_CLOSE(enzyme::get<0>(enzyme::autodiff<enzyme::Forward>(gp, enzyme::Duplicated<const float *>(&xf, &one))),
                3 * xf * xf, 1e-6, "Duplicated<const float*>");

    // Memory: J v of quad along v, against the gradient from reverse mode.
    double a[9], xs[3], v[3], grad[3] = {0, 0, 0};
    check_fill(a, 9, -1, 1);
    check_fill(xs, 3, -1, 1);
    check_fill(v, 3, -1, 1);
    double jv = enzyme::get<0>(enzyme::autodiff<enzyme::Forward>(
        quad, enzyme::Const<const double *>(a), enzyme::Duplicated<const double *>(xs, v), enzyme::Const{3}));
    enzyme::autodiff<enzyme::Reverse>(quad, enzyme::Const<const double *>(a),
                                      enzyme::Duplicated<const double *>(xs, grad), enzyme::Const{3});
    CHECK_CLOSE(jv, check_dot(grad, v, 3), 1e-14, "quad: forward = reverse");
    double fd[3];
    struct Ctx { const double *a; };
    Ctx ctx{a};
    check_fd_grad([](const double *p, void *c) { return quad(((Ctx *)c)->a, p, 3); }, &ctx, xs, 3, fd);
    for (int i = 0; i < 3; ++i)
      CHECK_CLOSE(grad[i], fd[i], 1e-8, "quad gradient vs FD [%d]", i);

    // A void function writing through a Duplicated pointer: the tangent lands in the shadow.
    double ys[3], dys[3];
    auto nothing = enzyme::autodiff<enzyme::Forward>(scale_into, enzyme::Duplicated{x, 1.0},
                                                     enzyme::Duplicated<const double *>(xs, v),
                                                     enzyme::Duplicated<double *>(ys, dys), enzyme::Const{3});
    static_assert(enzyme::tuple_size_v<decltype(nothing)> == 0, "a void function returns an empty tuple");
    for (int i = 0; i < 3; ++i) {
      CHECK_CLOSE(ys[i], x * xs[i] * xs[i], 1e-15, "void fwd primal [%d]", i);
      CHECK_CLOSE(dys[i], xs[i] * xs[i] + 2 * x * xs[i] * v[i], 1e-14, "void fwd tangent [%d]", i);
    }
  }
  return check_report();
}
