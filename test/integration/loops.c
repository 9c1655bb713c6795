// Loops of every shape: counted (up, down, step 2, trip count from a const argument), nested
// (rectangular and triangular), data-dependent while loops whose trip count is known only at the
// end, a Newton iteration run to convergence, break/continue, early return from inside a loop,
// do-while, long loops (10^4 iterations: the tape must grow), loop-carried products.
// Reverse and forward vs. analytic derivatives and central differences.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -x c++ -O0 -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
#include "check.h"

/* truncated exp series: sum_{i<n} x^i/i!; derivative sum_{i<n-1} x^i/i! */
static double expser(double x, int n) {
  double s = 0, term = 1;
  for (int i = 0; i < n; ++i) {
    s += term;
    term *= x / (i + 1);
  }
  return s;
}

/* counted down, step 2 */
static double down2(double x, double y) {
  double s = 0;
  for (int i = 20; i > 0; i -= 2)
    s = s * 0.5 + sin(i * x) * y;
  return s;
}

/* triangular nested loop */
static double tri(double x, double y) {
  double s = 0;
  for (int i = 0; i < 12; ++i)
    for (int j = 0; j <= i; ++j)
      s += cos(i * x + j * y) / (1.0 + i + j);
  return s;
}

/* triple nest with a loop-invariant active value */
static double nest3(double x, double y) {
  double s = 0, inv = x * y;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 5; ++j)
      for (int k = 0; k < 3; ++k)
        s += inv * (i + 1) - sin(x * (j + k)) * y;
  return s;
}

/* while loop whose trip count depends on the active data */
static double grow(double x, double y) {
  double s = x;
  int k = 0;
  while (s < 50.0) {
    s = s * 1.3 + y * y;
    ++k;
  }
  return s + k;
}

/* Newton iteration for sqrt(a), run to convergence: derivative -> 1/(2 sqrt a) */
static double newton_sqrt(double a) {
  double r = a > 1 ? a : 1.0;
  int it = 0;
  while (fabs(r * r - a) > 1e-15 * a && it < 100) {
    r = 0.5 * (r + a / r);
    ++it;
  }
  return r;
}

/* break, continue, early return from the loop body */
static double brk(double x, double y) {
  double s = 0;
  for (int i = 0; i < 100; ++i) {
    if (i % 3 == 1)
      continue;
    s += x * i * 0.01 + y * y * 0.1;
    if (s > 3.0)
      break;
    if (s < -3.0)
      return s * x;
  }
  return s * y;
}

static double dowhile(double x, double y) {
  double s = y;
  int i = 0;
  do {
    s = s * x + 1.0 / (1 + s * s);
    ++i;
  } while (i < 7);
  return s;
}

/* a long loop: the tape holds 10^4 iterations' values */
static double longloop(double x, double y) {
  double s = 0;
  for (int i = 0; i < 10000; ++i)
    s = sin(s + x) * 0.9 + y * 1e-3;
  return s;
}

/* a long loop whose length is only known at the end */
static double longwhile(double x, double y) {
  double s = 0, t = 0;
  while (t < 1000.0) {
    s = s * 0.999 + cos(x * t * 1e-3) * y;
    t += 0.25 + 0.125 * floor(4.0 * x * x); /* trip count depends on x, piecewise constant */
  }
  return s;
}

/* product over a loop */
static double prodloop(double x, double y) {
  double p = 1;
  for (int i = 1; i <= 8; ++i)
    p *= 1.0 + x / i + y * y / (i * i);
  return p;
}

/* nested: inner trip count data-dependent */
static double nestwhile(double x, double y) {
  double s = 0;
  for (int i = 0; i < 6; ++i) {
    double u = 1.0 + i * fabs(x);
    while (u < 20.0) {
      u = u * 1.7;
      s += u * y * 0.01;
    }
  }
  return s;
}

/* trip count from a const argument, loop bound read through a pointer-free int */
static double poly_horner(double x, int n) {
  double s = 0;
  for (int i = n; i >= 0; --i)
    s = s * x + (i + 1);
  return s;
}

int main(void) {
  check_seed(17);
  for (int t = 0; t < 6; ++t) {
    double x = check_uniform(-1.5, 1.5), y = check_uniform(-1.5, 1.5);
    for (int n = 1; n < 20; n += 6) {
      double want = expser(x, n - 1);
      CHECK_CLOSE(__enzyme_autodiff((void *)expser, x, enzyme_const, n), want, 1e-13, "rev expser n=%d", n);
      CHECK_CLOSE(__enzyme_fwddiff((void *)expser, x, 1.0, n), want, 1e-13, "fwd expser n=%d", n);
      double hw = 0;
      for (int i = n; i >= 1; --i)
        hw = hw * x + i * (i + 1);
      CHECK_CLOSE(__enzyme_autodiff((void *)poly_horner, x, n), hw, 1e-12, "rev horner n=%d", n);
      CHECK_CLOSE(__enzyme_fwddiff((void *)poly_horner, x, 1.0, enzyme_const, n), hw, 1e-12, "fwd horner n=%d", n);
    }
    CHECK_XY(down2, x, y, 1e-6);
    CHECK_XY(tri, x, y, 1e-6);
    CHECK_XY(nest3, x, y, 1e-6);
    CHECK_XY(grow, x + 2.0, y, 1e-6);
    CHECK_XY(brk, x, y, 1e-6);
    CHECK_XY(dowhile, x * 0.5, y, 1e-6);
    CHECK_XY(longloop, x, y, 1e-5);
    CHECK_XY(longwhile, x, y, 1e-5);
    CHECK_XY(prodloop, x, y, 1e-6);
    CHECK_XY(nestwhile, x, y, 1e-6);
    double a = check_uniform(0.1, 30);
    CHECK_CLOSE(__enzyme_autodiff((void *)newton_sqrt, a), 0.5 / sqrt(a), 1e-10, "rev newton a=%g", a);
    CHECK_CLOSE(__enzyme_fwddiff((void *)newton_sqrt, a, 1.0), 0.5 / sqrt(a), 1e-10, "fwd newton a=%g", a);
  }
  return check_report();
}
