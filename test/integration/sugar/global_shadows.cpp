// The C++ interface to the shadows of globals: enzyme::context, enzyme::shadow,
// enzyme::zero_shadows and enzyme::autodiff(ctx, f, ...). Reverse mode accumulates the globals'
// adjoints in the context's shadows, forward mode reads the tangents seeded there, and two
// contexts keep separate shadows. Checked against the analytic derivatives of
// h(x) = w0 sin(x) + w1 x^3 + c x (w and c globals) and, for the gradient in x, central
// differences.
// RUN: %synthase-cxx -std=c++17 -O0 -I%inputs %s -o %t0 && %t0
// RUN: %synthase-cxx -std=c++17 -O1 -I%inputs %s -o %t1 && %t1
// RUN: %synthase-cxx -std=c++17 -O2 -I%inputs %s -o %t2 && %t2
// RUN: %synthase-cxx -std=c++20 -O3 -I%inputs %s -o %t3 && %t3
#include "check.h"
#include <cmath>
#include <enzyme/enzyme>

double w[2] = {1.5, -0.25};
struct Coeffs {
  static double c;
};
double Coeffs::c = 0.75;

static double h(double x) { return w[0] * std::sin(x) + w[1] * x * x * x + Coeffs::c * x; }
static double dhdx(double x) { return w[0] * std::cos(x) + 3 * w[1] * x * x + Coeffs::c; }
static double h_fd(double x, void *) { return h(x); }

// An always-inline helper that queries a shadow is inlined where it is called, so the context it
// is given is still the one known at compile time.
__attribute__((always_inline)) static inline double *weight_shadow(enzyme::context_t ctx) {
  return enzyme::shadow(ctx, w);
}

int main() {
  const double x = 0.8;
  auto ctx = enzyme::context();
  double *dw = enzyme::shadow(ctx, w);
  double *dc = enzyme::shadow(ctx, Coeffs::c);
  CHECK_TRUE(weight_shadow(ctx) == dw, "the same context gives the same shadow");

  // Reverse mode, twice: the adjoints accumulate until zero_shadows.
  for (int round = 0; round < 2; ++round) {
    enzyme::zero_shadows(ctx);
    double g = enzyme::get<0>(enzyme::get<0>(enzyme::autodiff<enzyme::Reverse>(ctx, h, enzyme::Active{x})));
    CHECK_CLOSE(g, dhdx(x), 1e-14, "dh/dx, round %d", round);
    CHECK_CLOSE(g, check_fd(h_fd, nullptr, x), 1e-8, "dh/dx vs FD, round %d", round);
    CHECK_CLOSE(dw[0], std::sin(x), 1e-14, "dh/dw0, round %d", round);
    CHECK_CLOSE(dw[1], x * x * x, 1e-14, "dh/dw1, round %d", round);
    CHECK_CLOSE(*dc, x, 1e-14, "dh/dc, round %d", round);
  }
  enzyme::autodiff<enzyme::Reverse>(ctx, h, enzyme::Active{x});
  CHECK_CLOSE(*dc, 2 * x, 1e-14, "adjoints accumulate without zero_shadows");

  // Forward mode: the tangent along (dx, dw, dc) seeded in the shadows.
  enzyme::zero_shadows(ctx);
  dw[0] = 0.5;
  dw[1] = -2.0;
  *dc = 1.0;
  double t = enzyme::get<0>(enzyme::autodiff<enzyme::Forward>(ctx, h, enzyme::Duplicated<double>{x, 0.25}));
  double want = 0.25 * dhdx(x) + 0.5 * std::sin(x) - 2.0 * x * x * x + 1.0 * x;
  CHECK_CLOSE(t, want, 1e-14, "forward tangent with seeded global shadows");

  // A second context: its own shadows, zero at first; the first context's seeds are untouched.
  auto other = enzyme::context();
  double g2 = enzyme::get<0>(enzyme::get<0>(enzyme::autodiff<enzyme::Reverse>(other, h, enzyme::Active{x})));
  CHECK_CLOSE(g2, dhdx(x), 1e-14, "second context: dh/dx");
  CHECK_CLOSE(*enzyme::shadow(other, Coeffs::c), x, 1e-14, "second context: dh/dc");
  CHECK_TRUE(enzyme::shadow(other, w) != dw, "two contexts have distinct shadows");
  CHECK_CLOSE(dw[1], -2.0, 0, "the first context's seed is untouched");
  return check_report();
}
