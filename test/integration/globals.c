// Globals: a global double written by the function and read back (needs a shadow global), a
// global scratch array used as a temporary, a constant global table (inactive), a global
// accumulator updated across the call, a static local.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -x c++ -O0 -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
#include "check.h"

double g_tmp;          /* written, then read: active through memory */
double g_scratch[8];   /* global temporary array */
static const double g_table[5] = {1.0, -0.5, 0.25, 2.0, -1.5};
double g_total = 0.0;  /* accumulator the function adds into */
int g_counter = 0;

__attribute__((noinline)) static void stash(double v) { g_tmp = v * v; }

static double via_global(double x, double y) {
  stash(x + y);
  double a = sin(g_tmp);
  g_tmp = a * y; /* overwritten */
  return g_tmp + x * g_tmp;
}

static double via_scratch(double x, double y) {
  for (int i = 0; i < 8; ++i)
    g_scratch[i] = x * (i + 1) + y * g_table[i % 5];
  double s = 0;
  for (int i = 0; i < 8; ++i)
    s += g_scratch[i] * g_scratch[(i + 3) % 8];
  return s;
}

static double accumulate(double x, double y) {
  ++g_counter;
  g_total += x * y; /* a side effect on a global that the result also reads */
  return g_total * x;
}

static double with_static(double x, double y) {
  static double last = 0.0; /* inactive: stores the call count only */
  last += 1.0;
  return x * y * y + (last > 0 ? 0.0 : 1.0);
}

int main(void) {
  check_seed(53);
  for (int t = 0; t < 6; ++t) {
    double x = check_uniform(-1, 1), y = check_uniform(-1, 1);
    CHECK_XY(via_global, x, y, 1e-6);
    double s2 = (x + y) * (x + y), c = cos(s2) * 2 * (x + y);
    double a = sin(s2);
    /* r = a y (1 + x) */
    check_g2 g = __enzyme_autodiff_check_xy((void *)via_global, x, y);
    CHECK_CLOSE(g.dx, c * y * (1 + x) + a * y, 1e-14, "rev via_global dx");
    CHECK_CLOSE(g.dy, c * y * (1 + x) + a * (1 + x), 1e-14, "rev via_global dy");
    CHECK_CLOSE(g_tmp, a * y, 1e-15, "global left as the primal leaves it");
    CHECK_XY(via_scratch, x, y, 1e-6);
    CHECK_XY(with_static, x, y, 1e-6);

    g_total = 0.5;
    g_counter = 0;
    check_g2 h = __enzyme_autodiff_check_xy((void *)accumulate, x, y);
    /* r = (t0 + x y) x, t0 = 0.5 const */
    CHECK_CLOSE(h.dx, 0.5 + 2 * x * y, 1e-14, "rev accumulate dx");
    CHECK_CLOSE(h.dy, x * x, 1e-14, "rev accumulate dy");
    CHECK_CLOSE(g_total, 0.5 + x * y, 1e-15, "rev accumulate: global updated once");
    CHECK_TRUE(g_counter == 1, "rev accumulate counter %d", g_counter);
    g_total = 0.5;
    double tf = __enzyme_fwddiff((void *)accumulate, x, 1.0, y, 0.0);
    CHECK_CLOSE(tf, 0.5 + 2 * x * y, 1e-14, "fwd accumulate");
    CHECK_CLOSE(g_total, 0.5 + x * y, 1e-15, "fwd accumulate: global updated once");
  }
  return check_report();
}
