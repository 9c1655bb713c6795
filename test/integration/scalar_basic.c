// Straight-line scalar code: fadd, fsub, fmul, fdiv, fneg, constants, float<->double and
// int<->double casts; reverse (one and two active arguments, explicit and default markers,
// enzyme_const) and forward mode, against analytic derivatives and central differences.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -x c++ -O0 -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
#include "check.h"

typedef struct { double dx, dy; } G2;
G2 __enzyme_autodiff2(void *, ...);

/* f(x, y) = 3x^2 y - x/y + 2.5 - (-x) + y - 0.5 (y - x)^2 */
static double poly(double x, double y) {
  double d = y - x;
  return 3.0 * x * x * y - x / y + 2.5 - (-x) + y - 0.5 * d * d;
}
static double poly_dx(double x, double y) { return 6.0 * x * y - 1.0 / y + 1.0 + (y - x); }
static double poly_dy(double x, double y) { return 3.0 * x * x + x / (y * y) + 1.0 - (y - x); }

/* one argument: rational function with negation and constants */
static double rat(double x) { return -(x * x - 4.0) / (1.0 + x * x) + 7.0; }
static double rat_d(double x) {
  double q = 1.0 + x * x;
  return -(2.0 * x * q - (x * x - 4.0) * 2.0 * x) / (q * q);
}

/* a round trip through float: d/dx = 2 (float)x (float)... ~ 2x up to float rounding */
static double through_float(double x) {
  float f = (float)x;
  float g = f * f;
  return (double)g + 0.25 * x;
}

/* int casts carry no derivative: d/dx [x * floor-ish(x)] = (int)x */
static double int_cast(double x) {
  int k = (int)x;
  long long m = (long long)(x * 3.0);
  return x * (double)k + (double)m;
}

/* a constant function: derivative 0 */
static double constant_fn(double x) {
  (void)x;
  return 42.0;
}

/* parameter c is const in the calls below */
static double scaled(double x, double c) { return c * x * x - c / x; }

/* unsigned and signed int mixed in (inactive), fneg of a product */
static double mixed(double x, int n, double y) { return -(x * y) * n + (double)(n * n) * y; }

static double fd_poly_x(double x, void *c) { return poly(x, *(double *)c); }
static double fd_poly_y(double y, void *c) { return poly(*(double *)c, y); }
static double fd_rat(double x, void *c) { (void)c; return rat(x); }

int main(void) {
  check_seed(1);
  for (int t = 0; t < 8; ++t) {
    double x = check_uniform(-2, 2), y = check_uniform(0.5, 3);
    /* references */
    CHECK_CLOSE(check_fd(fd_poly_x, &y, x), poly_dx(x, y), 1e-7, "ref poly_dx");
    CHECK_CLOSE(check_fd(fd_poly_y, &x, y), poly_dy(x, y), 1e-7, "ref poly_dy");
    CHECK_CLOSE(check_fd(fd_rat, 0, x), rat_d(x), 1e-7, "ref rat_d");

    /* reverse, two actives by default */
    G2 g = __enzyme_autodiff2((void *)poly, x, y);
    CHECK_CLOSE(g.dx, poly_dx(x, y), 1e-12, "rev poly dx x=%g y=%g", x, y);
    CHECK_CLOSE(g.dy, poly_dy(x, y), 1e-12, "rev poly dy x=%g y=%g", x, y);
    /* explicit markers */
    G2 h = __enzyme_autodiff2((void *)poly, enzyme_out, x, enzyme_out, y);
    CHECK_CLOSE(h.dx, poly_dx(x, y), 1e-12, "rev poly explicit dx");
    CHECK_CLOSE(h.dy, poly_dy(x, y), 1e-12, "rev poly explicit dy");
    /* one active, one const */
    double dxc = __enzyme_autodiff((void *)poly, enzyme_out, x, enzyme_const, y);
    CHECK_CLOSE(dxc, poly_dx(x, y), 1e-12, "rev poly const y");
    double dyc = __enzyme_autodiff((void *)poly, enzyme_const, x, y);
    CHECK_CLOSE(dyc, poly_dy(x, y), 1e-12, "rev poly const x");

    /* forward: tangent = grad . v */
    double vx = check_uniform(-1, 1), vy = check_uniform(-1, 1);
    double tf = __enzyme_fwddiff((void *)poly, x, vx, y, vy);
    CHECK_CLOSE(tf, poly_dx(x, y) * vx + poly_dy(x, y) * vy, 1e-12, "fwd poly");
    double tf2 = __enzyme_fwddiff((void *)poly, enzyme_dup, x, vx, enzyme_const, y);
    CHECK_CLOSE(tf2, poly_dx(x, y) * vx, 1e-12, "fwd poly const y");
    /* dot-product test: <J v, w> == <v, J^T w> with w = 1 (scalar output) */
    CHECK_CLOSE(tf, g.dx * vx + g.dy * vy, 1e-13, "fwd/rev dot poly");

    CHECK_CLOSE(__enzyme_autodiff((void *)rat, x), rat_d(x), 1e-12, "rev rat x=%g", x);
    CHECK_CLOSE(__enzyme_fwddiff((void *)rat, x, 1.0), rat_d(x), 1e-12, "fwd rat x=%g", x);
    CHECK_CLOSE(__enzyme_fwddiff((void *)rat, x, -3.0), -3.0 * rat_d(x), 1e-12, "fwd rat scaled");

    double xf = (double)(float)x;
    CHECK_CLOSE(__enzyme_autodiff((void *)through_float, x), 2.0 * xf + 0.25, 1e-6,
                "rev through_float x=%g", x);
    CHECK_CLOSE(__enzyme_fwddiff((void *)through_float, x, 1.0), 2.0 * xf + 0.25, 1e-6,
                "fwd through_float");

    double xi = x + 3.3; /* avoid integer boundaries */
    CHECK_CLOSE(__enzyme_autodiff((void *)int_cast, xi), (double)(int)xi, 1e-15,
                "rev int_cast x=%g", xi);
    CHECK_CLOSE(__enzyme_fwddiff((void *)int_cast, xi, 1.0), (double)(int)xi, 1e-15, "fwd int_cast");

    CHECK_CLOSE(__enzyme_autodiff((void *)constant_fn, x), 0.0, 0, "rev constant");
    CHECK_CLOSE(__enzyme_fwddiff((void *)constant_fn, x, 1.0), 0.0, 0, "fwd constant");

    double c = check_uniform(-3, 3);
    CHECK_CLOSE(__enzyme_autodiff((void *)scaled, x, enzyme_const, c), 2 * c * x + c / (x * x), 1e-12,
                "rev scaled const c");
    CHECK_CLOSE(__enzyme_fwddiff((void *)scaled, x, 1.0, enzyme_const, c), 2 * c * x + c / (x * x),
                1e-12, "fwd scaled const c");

    int n = 3 + t;
    G2 gm = __enzyme_autodiff2((void *)mixed, x, n, y);
    CHECK_CLOSE(gm.dx, -y * n, 1e-14, "rev mixed dx");
    CHECK_CLOSE(gm.dy, -x * n + (double)(n * n), 1e-14, "rev mixed dy");
    CHECK_CLOSE(__enzyme_fwddiff((void *)mixed, x, vx, enzyme_const, n, y, vy),
                -y * n * vx + (-x * n + n * n) * vy, 1e-13, "fwd mixed");
  }
  return check_report();
}
