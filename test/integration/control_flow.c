// Branches on active data, nested if/else, switch (on a constant argument and on a value
// computed from active data), ternary selects, short-circuit conditions, early returns and goto:
// reverse and forward vs. central differences and analytic derivatives, on every branch.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -x c++ -O0 -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
#include "check.h"

static double piecewise(double x) {
  if (x < -1.0)
    return x * x * x;
  else if (x < 0.5)
    return sin(x) * 2.0 + x;
  return exp(-x) * x;
}
static double piecewise_d(double x) {
  if (x < -1.0)
    return 3 * x * x;
  if (x < 0.5)
    return 2 * cos(x) + 1;
  return exp(-x) * (1 - x);
}

static double nested(double x, double y) {
  double r;
  if (x > 0) {
    if (y > 0)
      r = x * y;
    else
      r = x / (1 + y * y);
  } else {
    if (x * y > 0.5)
      r = sqrt(x * y);
    else
      r = x + y * y * y;
  }
  return r * r + x;
}

/* switch on a value derived from active data */
static double switchy(double x, double y) {
  int k = (int)floor(x * 2.0); /* inactive */
  double r = 0;
  switch (k) {
  case -4:
  case -3:
    r = x * y;
    break;
  case -2:
    r = sin(x + y);
    /* fallthrough */
  case -1:
    r += y * y;
    break;
  case 0:
    r = exp(x) * y;
    break;
  case 1:
  case 2:
    r = log(1 + x * x) + y;
    break;
  default:
    r = x * x * y * y;
  }
  return r;
}

/* switch on a const int argument */
static double by_mode(double x, int mode) {
  switch (mode) {
  case 0:
    return x * x;
  case 1:
    return sin(x);
  case 2:
    return exp(x);
  default:
    return 1.0 / x;
  }
}

/* selects and short-circuit */
static double selects(double x, double y) {
  double a = x > y ? x * 2 : y * 3;
  double b = (x > 0 && y > 0) || x * y < -0.5 ? a * x : a + y;
  double c = fmax(a, b) - fmin(x, y);
  return c + (fabs(x) > fabs(y) ? x : -y);
}

/* early returns and goto */
static double early(double x, double y) {
  double s = x * y;
  if (s > 1.0)
    return s * s;
  if (x < -0.5)
    goto neg;
  s += x;
  if (y < 0)
    return s * y;
  return s + sin(y);
neg:
  return s - x * x * x;
}

/* branch-dependent number of uses and a phi merging active and constant values */
static double phimerge(double x, double y) {
  double v = 2.0;
  if (x > 0.3)
    v = x * y;
  else if (y > 0.3)
    v = y;
  return v * v + v;
}

static double mode0(double x) { return by_mode(x, 0); }

int main(void) {
  check_seed(13);
  for (int t = 0; t < 40; ++t) {
    double x = check_uniform(-2.5, 2.5), y = check_uniform(-2.5, 2.5);
    CHECK_CLOSE(__enzyme_autodiff((void *)piecewise, x), piecewise_d(x), 1e-14, "rev piecewise x=%g", x);
    CHECK_CLOSE(__enzyme_fwddiff((void *)piecewise, x, 1.0), piecewise_d(x), 1e-14, "fwd piecewise x=%g", x);
    CHECK_X(piecewise, x, 1e-6);
    CHECK_XY(nested, x, y, 1e-6);
    CHECK_XY(switchy, x, y, 1e-6);
    CHECK_XY(selects, x, y, 1e-6);
    CHECK_XY(early, x, y, 1e-6);
    CHECK_XY(phimerge, x, y, 1e-6);
    CHECK_X(mode0, x, 1e-6);
    for (int m = 0; m < 4; ++m) {
      double xm = x == 0 ? 0.5 : x;
      double want = m == 0 ? 2 * xm : m == 1 ? cos(xm) : m == 2 ? exp(xm) : -1 / (xm * xm);
      CHECK_CLOSE(__enzyme_autodiff((void *)by_mode, xm, enzyme_const, m), want, 1e-14, "rev by_mode %d", m);
      CHECK_CLOSE(__enzyme_fwddiff((void *)by_mode, xm, 1.0, m), want, 1e-14, "fwd by_mode %d", m);
    }
  }
  return check_report();
}
