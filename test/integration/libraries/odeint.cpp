// boost::numeric::odeint (Debian libboost-dev): integrate_const with Euler and RK4 steppers on a
// damped oscillator, the observer pushing every output time into std::vectors (whose growth
// reallocates past 16 entries). Each output's gradient with respect to the initial state and the
// stiffness is checked in both modes against central finite differences (issue 12, class 8: at -O2
// the outputs after the 18th came out wrong).
// RUN: %synthase-cxx -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cxx -O2 -I%inputs %s -o %t2 -lm && %t2
#include "check.h"
#include <boost/numeric/odeint.hpp>
#include <vector>

using namespace boost::numeric::odeint;
typedef std::vector<double> state;

struct Oscillator {
  double k;
  void operator()(const state &x, state &dx, double) const {
    dx[0] = x[1];
    dx[1] = -k * x[0] - 0.1 * x[1];
  }
};
struct Recorder {
  std::vector<double> *xs, *ts;
  void operator()(const state &x, double t) const {
    xs->push_back(x[0]);
    ts->push_back(t);
  }
};

static int K; /* which output to differentiate */

static double euler_out(const double *p) {
  state x = {p[0], p[1]};
  std::vector<double> xs, ts;
  integrate_const(euler<state>(), Oscillator{p[2]}, x, 0.0, 2.0, 0.05, Recorder{&xs, &ts});
  return xs[K];
}
static double rk4_out(const double *p) {
  state x = {p[0], p[1]};
  std::vector<double> xs, ts;
  integrate_const(runge_kutta4<state>(), Oscillator{p[2]}, x, 0.0, 2.0, 0.1, Recorder{&xs, &ts});
  return xs[K] + x[1];
}
static double euler_fd(const double *p, void *) { return euler_out(p); }
static double rk4_fd(const double *p, void *) { return rk4_out(p); }

int main() {
  double p[3] = {1.0, 0.2, 3.0};
  for (K = 0; K <= 40; K += 5) {
    double g[3] = {0}, fd[3];
    __enzyme_autodiff((void *)euler_out, enzyme_dup, p, g);
    check_fd_grad(euler_fd, 0, p, 3, fd);
    for (int i = 0; i < 3; i++) {
      CHECK_CLOSE(g[i], fd[i], 1e-7, "euler output %d reverse d/dp[%d]", K, i);
      double e[3] = {0};
      e[i] = 1;
      CHECK_CLOSE(__enzyme_fwddiff((void *)euler_out, enzyme_dup, p, e), g[i], 1e-12, "euler output %d fwd/rev [%d]", K, i);
    }
  }
  for (K = 0; K <= 20; K += 4) {
    double g[3] = {0}, fd[3];
    __enzyme_autodiff((void *)rk4_out, enzyme_dup, p, g);
    check_fd_grad(rk4_fd, 0, p, 3, fd);
    for (int i = 0; i < 3; i++) {
      CHECK_CLOSE(g[i], fd[i], 1e-7, "rk4 output %d reverse d/dp[%d]", K, i);
      double e[3] = {0};
      e[i] = 1;
      CHECK_CLOSE(__enzyme_fwddiff((void *)rk4_out, enzyme_dup, p, e), g[i], 1e-12, "rk4 output %d fwd/rev [%d]", K, i);
    }
  }
  return check_report();
}
