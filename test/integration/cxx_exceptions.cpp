// C++ exceptions through derivatives: a function that throws on bad input, differentiated inside
// try/catch (forward and reverse). A good input gives the analytic derivative; a bad one throws
// out of the derivative, the handler catches it and the destructors of the caller's locals run,
// also when the handler is one frame further up. The throw comes after the tape has outgrown the
// frame buffer, and derivatives computed after the exceptions are still right. The tape buffer
// goes back to the thread's arena on the unwinding path too: two thousand throwing gradients
// reuse one buffer instead of leaking one each.
// RUN: %synthase-cxx -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cxx -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
#include "check.h"
#include <stdexcept>

#define N 4000

struct tape_arena {
  void *buf;
  unsigned long cap;
  unsigned long registered;
};
extern "C" __thread struct tape_arena __synthase_tape_arena_v1;

static int destroyed = 0;
struct Guard {
  ~Guard() { ++destroyed; }
};

// sum x_i^1.5; throws at the first negative element, after the tape holds the ones before it.
static void check_input(double v) {
  if (v < 0)
    throw std::domain_error("negative input");
}
static double checked(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) {
    check_input(x[i]);
    s += sqrt(x[i]) * x[i];
  }
  return s;
}

// A scalar that throws directly: f(a) = a^3 / (1 + a^2) for a >= 0.
static double scalar(double a) {
  if (a < 0)
    throw std::invalid_argument("negative scalar");
  return a * a * a / (1 + a * a);
}
static double scalar_d(double a) { return (3 * a * a * (1 + a * a) - 2 * a * a * a * a) / ((1 + a * a) * (1 + a * a)); }

// The derivative call sits in a frame with a local to destroy and no handler of its own.
static double grad_no_handler(const double *x, double *dx) {
  Guard g;
  return __enzyme_autodiff((void *)checked, enzyme_dup, x, dx, enzyme_const, N);
}

static double x[N], dx[N], v[N], bad[N];

int main() {
  check_seed(7);
  for (int i = 0; i < N; ++i) {
    x[i] = check_uniform(0.1, 2.0);
    v[i] = check_uniform(-1.0, 1.0);
    bad[i] = x[i];
  }
  bad[N - 10] = -1.0;

  for (int round = 0; round < 3; ++round) {
    // reverse, handler in the same frame
    int before = destroyed;
    bool caught = false;
    try {
      Guard g;
      memset(dx, 0, sizeof dx);
      __enzyme_autodiff((void *)checked, enzyme_dup, bad, dx, enzyme_const, N);
    } catch (const std::domain_error &) {
      caught = true;
    }
    CHECK_TRUE(caught, "reverse: exception caught (round %d)", round);
    CHECK_TRUE(destroyed == before + 1, "reverse: local destroyed (round %d)", round);

    // reverse, handler one frame up
    before = destroyed;
    caught = false;
    try {
      grad_no_handler(bad, dx);
    } catch (const std::domain_error &) {
      caught = true;
    }
    CHECK_TRUE(caught, "reverse, outer handler: exception caught (round %d)", round);
    CHECK_TRUE(destroyed == before + 1, "reverse, outer handler: local destroyed (round %d)", round);

    // forward
    before = destroyed;
    caught = false;
    try {
      Guard g;
      __enzyme_fwddiff((void *)checked, enzyme_dup, bad, v, enzyme_const, N);
    } catch (const std::domain_error &) {
      caught = true;
    }
    CHECK_TRUE(caught, "forward: exception caught (round %d)", round);
    CHECK_TRUE(destroyed == before + 1, "forward: local destroyed (round %d)", round);

    // scalar, active argument
    before = destroyed;
    caught = false;
    try {
      Guard g;
      __enzyme_autodiff((void *)scalar, -0.5);
    } catch (const std::invalid_argument &) {
      caught = true;
    }
    CHECK_TRUE(caught, "scalar reverse: exception caught (round %d)", round);
    CHECK_TRUE(destroyed == before + 1, "scalar reverse: local destroyed (round %d)", round);
  }

  // Good inputs, after the exceptions: analytic d/dx_i x_i^1.5 = 1.5 sqrt(x_i).
  double fwd_expected = 0;
  for (int i = 0; i < N; ++i)
    fwd_expected += 1.5 * sqrt(x[i]) * v[i];
  for (int round = 0; round < 2; ++round) {
    int before = destroyed;
    memset(dx, 0, sizeof dx);
    try {
      Guard g;
      grad_no_handler(x, dx);
    } catch (...) {
      CHECK_TRUE(false, "good input threw (round %d)", round);
    }
    CHECK_TRUE(destroyed == before + 2, "good input: locals destroyed once each (round %d)", round);
    double worst = 0;
    int at = 0;
    for (int i = 0; i < N; ++i) {
      double e = (double)check_relerr(dx[i], 1.5 * sqrt(x[i]));
      if (e > worst)
        worst = e, at = i;
    }
    CHECK_CLOSE(dx[at], 1.5 * sqrt(x[at]), 1e-13, "reverse gradient, worst element %d (round %d)", at, round);
    double t = 0;
    try {
      t = __enzyme_fwddiff((void *)checked, enzyme_dup, x, v, enzyme_const, N);
    } catch (...) {
      CHECK_TRUE(false, "forward, good input threw (round %d)", round);
    }
    CHECK_CLOSE(t, fwd_expected, 1e-12, "forward tangent (round %d)", round);
    CHECK_CLOSE(check_dot(dx, v, N), t, 1e-12, "forward and reverse agree (round %d)", round);
  }
  for (double a : {0.3, 1.0, 2.5}) {
    double d = 0;
    try {
      d = __enzyme_autodiff((void *)scalar, a);
    } catch (...) {
      CHECK_TRUE(false, "scalar %g threw", a);
    }
    CHECK_CLOSE(d, scalar_d(a), 1e-13, "scalar reverse at %g", a);
    CHECK_CLOSE(__enzyme_fwddiff((void *)scalar, enzyme_dup, a, 1.0), scalar_d(a), 1e-13, "scalar forward at %g", a);
  }
  // A warm arena buffer survives throwing gradients, with the handler in the same frame (the
  // entry is an invoke) and one frame up (a call in a frame with only a cleanup).
  memset(dx, 0, sizeof dx);
  grad_no_handler(x, dx);
  void *warm = __synthase_tape_arena_v1.buf;
  unsigned long cap = __synthase_tape_arena_v1.cap;
  CHECK_TRUE(warm && cap > 512, "the arena holds the tape buffer after a gradient");
  int caught = 0;
  for (int k = 0; k < 1000; ++k) {
    try {
      __enzyme_autodiff((void *)checked, enzyme_dup, bad, dx, enzyme_const, N);
    } catch (const std::domain_error &) {
      ++caught;
    }
    try {
      grad_no_handler(bad, dx);
    } catch (const std::domain_error &) {
      ++caught;
    }
  }
  CHECK_TRUE(caught == 2000, "2000 throwing gradients caught (%d)", caught);
  CHECK_TRUE(__synthase_tape_arena_v1.buf == warm && __synthase_tape_arena_v1.cap == cap,
             "the arena holds the same buffer after 2000 throwing gradients (given back on unwind)");
  return check_report();
}
