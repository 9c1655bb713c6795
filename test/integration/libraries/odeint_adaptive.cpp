// boost::numeric::odeint (Debian libboost-dev 1.74): integrate_const and integrate_adaptive with
// Euler, RK4, Dormand–Prince (plain, make_controlled, make_dense_output) and Cash–Karp
// (make_controlled) on Lotka–Volterra, the state a std::vector<double> here and a
// std::array<double, 2> with -DSTATE_ARRAY (odeint_adaptive_array.test). The gradient of a scalar
// of the final state and of what the observer saw, with respect to the initial state and a
// parameter, in both modes, against central finite differences. (The dense-output stepper copies
// its state onto itself when integrate_adaptive re-initializes it for the last step: a memmove
// whose source is its destination, whose reverse once zeroed the adjoint.)
//
// Why the tolerances hold although adaptive steppers make the step sequence depend on the input:
// which steps are rejected is a branch on the error estimate, and the next step size a smooth
// function of it. Between branch flips the integrator is smooth in the input, and both modes
// differentiate exactly that function, step sizes included. So the check is valid only if the
// finite-difference probes x ± h take the branches x takes: the system counts its evaluations
// (a rejected step costs extra ones) and every probe must count the same as x, which is checked.
// With the same branches the central difference (h = 1e-5) is accurate to O(h²) plus rounding;
// the error estimate is a difference of stage values ~1e-6 apart, so it carries ~1e-10 relative
// rounding noise, and the step sizes a fifth of that, which reaches the final state only through
// the local error (~1e-6). Measured: at most 3.4e-10 relative; checked at 1e-8. Forward and
// reverse mode sum the same terms in different orders: 1e-10.
// RUN: %synthase-cxx -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cxx -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
#include "check.h"
#include <array>
#include <boost/numeric/odeint.hpp>
#include <vector>

using namespace boost::numeric::odeint;
#ifdef STATE_ARRAY
typedef std::array<double, 2> state;
static state make_state(double a, double b) { return state{{a, b}}; }
#else
typedef std::vector<double> state;
static state make_state(double a, double b) { return state{a, b}; }
#endif

static int Evals; /* right-hand-side evaluations of the last run */

struct LotkaVolterra {
  double a;
  void operator()(const state &x, state &dx, double) const {
    ++Evals;
    dx[0] = a * x[0] - 0.4 * x[0] * x[1];
    dx[1] = -0.8 * x[1] + 0.3 * x[0] * x[1];
  }
};
/* integrate_const observes on a fixed time grid: a time-weighted sum of the observed states. */
struct Sum {
  double *s;
  void operator()(const state &x, double t) const { *s += x[0] * t; }
};
/* integrate_adaptive observes at every accepted step, whose times carry the rounding noise of the
   error estimate (see above), which a sum over them would pass to the finite differences: keep
   the last observation only (the end point, t = 3 exactly). */
struct Last {
  double *s;
  void operator()(const state &x, double) const { *s = x[0]; }
};

static double objective(const state &x, double s) { return x[0] * x[0] + 0.5 * x[1] + 0.1 * s; }

/* Tolerances of the adaptive steppers: loose enough that a few steps are rejected. */
static const double Abs = 1e-6, Rel = 1e-6;

#define CONST_RUN(NAME, STEPPER, DT)                                                               \
  static double NAME(const double *p) {                                                            \
    Evals = 0;                                                                                     \
    state x = make_state(p[0], p[1]);                                                              \
    double s = 0;                                                                                  \
    integrate_const(STEPPER, LotkaVolterra{p[2]}, x, 0.0, 3.0, DT, Sum{&s});                       \
    return objective(x, s);                                                                        \
  }
#define ADAPTIVE_RUN(NAME, STEPPER, DT)                                                            \
  static double NAME(const double *p) {                                                            \
    Evals = 0;                                                                                     \
    state x = make_state(p[0], p[1]);                                                              \
    double s = 0;                                                                                  \
    integrate_adaptive(STEPPER, LotkaVolterra{p[2]}, x, 0.0, 3.0, DT, Last{&s});                    \
    return objective(x, s);                                                                        \
  }

CONST_RUN(const_euler, euler<state>(), 0.01)
CONST_RUN(const_rk4, runge_kutta4<state>(), 0.1)
CONST_RUN(const_dopri5, runge_kutta_dopri5<state>(), 0.1)
CONST_RUN(const_dopri5_controlled, make_controlled(Abs, Rel, runge_kutta_dopri5<state>()), 0.5)
CONST_RUN(const_dopri5_dense, make_dense_output(Abs, Rel, runge_kutta_dopri5<state>()), 0.25)
CONST_RUN(const_cash_karp, make_controlled(Abs, Rel, runge_kutta_cash_karp54<state>()), 0.5)
ADAPTIVE_RUN(adaptive_euler, euler<state>(), 0.01)
ADAPTIVE_RUN(adaptive_rk4, runge_kutta4<state>(), 0.1)
ADAPTIVE_RUN(adaptive_dopri5, runge_kutta_dopri5<state>(), 0.1)
ADAPTIVE_RUN(adaptive_dopri5_controlled, make_controlled(Abs, Rel, runge_kutta_dopri5<state>()), 0.1)
ADAPTIVE_RUN(adaptive_dopri5_dense, make_dense_output(Abs, Rel, runge_kutta_dopri5<state>()), 0.1)
ADAPTIVE_RUN(adaptive_cash_karp, make_controlled(Abs, Rel, runge_kutta_cash_karp54<state>()), 0.1)

typedef double (*run_fn)(const double *);
struct Probe {
  run_fn f;
  int evals, flips;
};
static double probe(const double *p, void *c) {
  Probe *k = (Probe *)c;
  double v = k->f(p);
  k->flips += Evals != k->evals;
  return v;
}

static void check(const char *name, run_fn f, double revd(run_fn, double *, double *),
                  double fwdd(run_fn, double *, double *)) {
  double p[3] = {1.0, 0.5, 0.9};
  f(p);
  Probe k = {f, Evals, 0};
  double fd[3], g[3] = {0};
  check_fd_grad(probe, &k, p, 3, fd);
  CHECK_TRUE(k.flips == 0, "%s: the finite-difference probes keep the step sequence", name);
  revd(f, p, g);
  for (int i = 0; i < 3; i++) {
    CHECK_CLOSE(g[i], fd[i], 1e-8, "%s reverse d/dp[%d]", name, i);
    double e[3] = {0};
    e[i] = 1;
    CHECK_CLOSE(fwdd(f, p, e), g[i], 1e-10, "%s forward/reverse d/dp[%d]", name, i);
  }
}

/* The entry points take the function as a constant, so each is spelled per function. */
#define CHECK_RUN(F)                                                                               \
  check(#F, F, [](run_fn, double *p, double *g) { return __enzyme_autodiff((void *)F, enzyme_dup, p, g); }, \
        [](run_fn, double *p, double *e) { return __enzyme_fwddiff((void *)F, enzyme_dup, p, e); })

int main() {
  CHECK_RUN(const_euler);
  CHECK_RUN(const_rk4);
  CHECK_RUN(const_dopri5);
  CHECK_RUN(const_dopri5_controlled);
  CHECK_RUN(const_dopri5_dense);
  CHECK_RUN(const_cash_karp);
  CHECK_RUN(adaptive_euler);
  CHECK_RUN(adaptive_rk4);
  CHECK_RUN(adaptive_dopri5);
  CHECK_RUN(adaptive_dopri5_controlled);
  CHECK_RUN(adaptive_dopri5_dense);
  CHECK_RUN(adaptive_cash_karp);
  return check_report();
}
