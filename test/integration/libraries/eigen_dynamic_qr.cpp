// Householder QR least squares on dynamic-size Eigen matrices (MatrixXd, VectorXd) at
// -march=native, where Eigen allocates each block by hand-aligning a malloc'd one and keeps
// malloc's pointer just before the data: a constant-length copy of a vector's packets then sits
// in memory that holds one pointer, outside the copied bytes. Before: refused ("cannot tell which
// bytes of this copy hold pointers"); now the copy moves floats only. Reverse mode against central
// finite differences (1e-6), forward mode against reverse, also at -O2 without -march=native.
// RUN: %synthase-cxx -O2 -I%inputs -I/usr/include/eigen3 %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -O3 -march=native -I%inputs -I/usr/include/eigen3 %s -o %t3 -lm && %t3
#include "check.h"
#include <Eigen/Dense>

using namespace Eigen;

/* x fills a 4x3 design matrix (with a unit diagonal so it has full rank) */
static double qr_lsq(const double *x, int n) {
  (void)n;
  MatrixXd A(4, 3);
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 3; j++)
      A(i, j) = x[(i + j) % 4] + (i == j);
  VectorXd b(4);
  b << 1, 2, 3, 4;
  return A.householderQr().solve(b).sum();
}

/* a taller system, solved twice (two QR objects, two allocations each) */
static double qr_twice(const double *x, int n) {
  MatrixXd A(n, 3);
  VectorXd b(n);
  for (int i = 0; i < n; i++) {
    A(i, 0) = 1;
    A(i, 1) = x[i];
    A(i, 2) = x[i] * x[i];
    b(i) = sin(x[i]) + 0.1 * i;
  }
  VectorXd c = A.householderQr().solve(b);
  VectorXd r = b - A * c;
  return c.squaredNorm() + A.colPivHouseholderQr().solve(r).sum();
}

int main(void) {
  check_gradient_n(qr_lsq, 4, "householderQr 4x3", 1e-6);
  check_gradient_n(qr_twice, 6, "two QR solves 6x3", 1e-6);
  check_gradient_n(qr_twice, 9, "two QR solves 9x3", 1e-6);
  return check_report();
}
