// Eigen expressions whose SSE2 / AVX kernels flip or clear sign bits with integer masks, and
// keep scalars in one lane of a vector whose other lane is undefined (the reverse sweep then
// multiplied an adjoint by that lane, and the optimizer folded the gradient away):
// negation, cwiseAbs, lpNorm<1>, lpNorm<Infinity>, maxCoeff of a negated Map, and
// Quaterniond::conjugate (quat_conj). Their gradients were silently zero at -O0 and -O2.
// Reverse mode against central differences, forward mode against reverse.
// RUN: %synthase-cxx -O0 -I%inputs -I/usr/include/eigen3 %s -o %t0 -lm && %t0
// RUN: %synthase-cxx -O2 -I%inputs -I/usr/include/eigen3 %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -O3 -march=native -I%inputs -I/usr/include/eigen3 %s -o %t3 -lm && %t3
#include "check.h"
#include <Eigen/Dense>
#include <Eigen/Geometry>

using namespace Eigen;

static double neg_sum(const double *x, int n) {
  Map<const VectorXd> v(x, n);
  return (-v).sum() + (-v).array().square().sum();
}
static double abs_norms(const double *x, int n) {
  Map<const VectorXd> v(x, n);
  return v.cwiseAbs().sum() + 0.5 * v.lpNorm<1>() + v.lpNorm<Infinity>() + (-v).maxCoeff();
}
static double conjugate(const double *x, int n) {
  (void)n;
  Quaterniond q(x[0], x[1], x[2], x[3]);
  Quaterniond c = q.conjugate();
  Quaterniond r = c * q.normalized();
  return 2 * c.x() + c.w() * c.y() + r.z() * x[4] + std::sin(c.z());
}

int main() {
  check_seed(19);
  check_gradient_fn<7, neg_sum>("-v");
  check_gradient_fn<7, abs_norms>("cwiseAbs / lpNorm / maxCoeff(-v)");
  check_gradient_fn<5, conjugate>("Quaterniond::conjugate");
  return check_report();
}
