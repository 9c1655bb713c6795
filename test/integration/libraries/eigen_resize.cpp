// Eigen vectors and matrices passed with their shadows and resized inside the differentiated
// function: conservativeResize reallocates the caller's storage (Eigen's realloc of its aligned
// block), so the gradient of the values passed must follow to the caller's resized shadow
// (the relocation log, docs/design.md). Reverse against central finite differences, forward
// against reverse. Not with AVX (-march=native): Eigen then realigns the block by hand after
// the realloc, a memmove inside a block that also holds the original pointer, which is refused.
// RUN: %synthase-cxx -O0 -I%inputs -I/usr/include/eigen3 %s -o %t0 -lm && %t0
// RUN: %synthase-cxx -O2 -I%inputs -I/usr/include/eigen3 %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -O3 -I%inputs -I/usr/include/eigen3 %s -o %t3 -lm && %t3
#include "check.h"
#include <Eigen/Dense>

static double grow(Eigen::VectorXd &v, double a) {
  long n = v.size();
  double s = v.squaredNorm();
  v.conservativeResize(n + 3);
  for (long i = 0; i < 3; i++)
    v[n + i] = v[i] * a + s;
  return v.dot(Eigen::VectorXd::LinSpaced(n + 3, 1.0, n + 3.0));
}

static double widen(Eigen::MatrixXd &m, double a) {
  long c = m.cols();
  m.conservativeResize(Eigen::NoChange, c + 2);
  m.col(c) = m.col(0) * a;
  m.col(c + 1) = m.col(1).cwiseProduct(m.col(0));
  return m.squaredNorm() + m.sum() * a;
}

int main() {
  Eigen::VectorXd v(4), dv = Eigen::VectorXd::Zero(4);
  v << 0.5, -0.25, 1.5, 2.0;
  Eigen::VectorXd v0 = v;
  __enzyme_autodiff((void *)grow, enzyme_dup, &v, &dv, enzyme_const, 0.7);
  CHECK_TRUE(dv.size() == 7, "vector shadow size %ld", (long)dv.size());
  for (int i = 0; i < 4; i++) {
    Eigen::VectorXd p = v0, q = v0;
    p[i] += 1e-6;
    q[i] -= 1e-6;
    CHECK_CLOSE(dv[i], (grow(p, 0.7) - grow(q, 0.7)) / 2e-6, 1e-7, "conservativeResize vector d/dv[%d]", i);
    Eigen::VectorXd w = v0, dw = Eigen::VectorXd::Zero(4);
    dw[i] = 1;
    double t = __enzyme_fwddiff((void *)grow, enzyme_dup, &w, &dw, enzyme_const, 0.7);
    CHECK_CLOSE(t, dv[i], 1e-10, "conservativeResize vector forward vs reverse [%d]", i);
  }
  Eigen::MatrixXd m(3, 2), dm = Eigen::MatrixXd::Zero(3, 2);
  m << 0.5, -0.25, 1.5, 2.0, -0.75, 0.3;
  Eigen::MatrixXd m0 = m;
  __enzyme_autodiff((void *)widen, enzyme_dup, &m, &dm, enzyme_const, 0.7);
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 2; c++) {
      Eigen::MatrixXd p = m0, q = m0;
      p(r, c) += 1e-6;
      q(r, c) -= 1e-6;
      CHECK_CLOSE(dm(r, c), (widen(p, 0.7) - widen(q, 0.7)) / 2e-6, 1e-7, "conservativeResize matrix d/dm(%d,%d)", r, c);
    }
  return check_report();
}
