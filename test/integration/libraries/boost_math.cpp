// Boost.Math special functions (Debian libboost-dev, header only) inside derivatives: the
// incomplete beta and gamma functions and the distributions built on them. Their implementations
// take an optional out-parameter for their own derivative (`T *p_derivative`, null from ibeta and
// gamma_p, every store behind `if (p_derivative)`) and pass it on through recursion and to
// callees kept out of line; the derivative of such a callee stored active values through a
// pointer without a shadow and was refused. A call passing null now goes to a copy of the callee
// with that argument null (docs/design.md, *Inline callees*). Also erf_inv, tgamma, digamma,
// beta and a normal quantile.
// Reverse mode against central finite differences, forward mode against reverse.
// RUN: %synthase-cxx -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cxx -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -O2 -g -I%inputs %s -o %tg -lm && %tg
#include "check.h"
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <boost/math/special_functions/beta.hpp>
#include <boost/math/special_functions/digamma.hpp>
#include <boost/math/special_functions/erf.hpp>
#include <boost/math/special_functions/gamma.hpp>

static double incomplete(double a, double b) {
  return boost::math::ibeta(a + 1, 2.5, 0.3) + boost::math::ibeta(1.5, b, 0.6) + boost::math::gamma_p(a + 0.5, 1.7) +
         boost::math::gamma_q(2.0, b);
}
static double distributions(double a, double b) {
  boost::math::students_t t(a + 3);
  boost::math::normal n(0.5, b);
  return boost::math::cdf(t, 0.8) + boost::math::cdf(n, a) + boost::math::quantile(n, 0.3);
}
static double specials(double a, double b) {
  return boost::math::erf_inv(0.3 * a) + boost::math::tgamma(b + 1) + boost::math::digamma(a + 2) +
         boost::math::beta(a + 1, b);
}

struct Grad2 { double da, db; };
extern "C" Grad2 __enzyme_autodiff_pair(void *, ...);

static void check(double (*f)(double, double), const char *name) {
  const double a = 0.73, b = 1.4, h = 1e-6;
  Grad2 g = __enzyme_autodiff_pair((void *)f, enzyme_out, a, enzyme_out, b);
  double fa = (f(a + h, b) - f(a - h, b)) / (2 * h), fb = (f(a, b + h) - f(a, b - h)) / (2 * h);
  CHECK_CLOSE(g.da, fa, 1e-6, "%s d/da", name);
  CHECK_CLOSE(g.db, fb, 1e-6, "%s d/db", name);
  CHECK_CLOSE(__enzyme_fwddiff((void *)f, a, 1.0, b, 0.0), g.da, 1e-10, "%s forward d/da", name);
  CHECK_CLOSE(__enzyme_fwddiff((void *)f, a, 0.0, b, 1.0), g.db, 1e-10, "%s forward d/db", name);
}

int main() {
  check(incomplete, "ibeta/gamma_p/gamma_q");
  check(distributions, "students_t/normal");
  check(specials, "erf_inv/tgamma/digamma/beta");
  return check_report();
}
