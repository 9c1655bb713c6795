// Eigen 3 (Debian libeigen3-dev) in both modes: fixed-size and dynamic matrices, products,
// transposes, inverse, determinant, norms, cross products and solves, each gradient checked
// against central finite differences and forward mode against reverse mode. Reverse mode needs
// the shadows of pointers returned by callees (data(), derived()) and typed struct copies of
// Eigen's expression objects; before, it was refused ("a pointer returned by a differentiated
// call") or crashed.
// RUN: %synthase-cxx -O0 -I%inputs -I/usr/include/eigen3 %s -o %t0 -lm && %t0
// RUN: %synthase-cxx -O2 -DDYNAMIC_REVERSE -I%inputs -I/usr/include/eigen3 %s -o %t2 -lm && %t2
// Eigen's FMA kernels are inline asm, which reverse mode refuses (README, "Not supported"):
// with -march=native the test turns Eigen's vectorization off.
// RUN: %synthase-cxx -O3 -march=native -DEIGEN_DONT_VECTORIZE -DNO_LSQ -I%inputs -I/usr/include/eigen3 %s -o %t3 -lm && %t3
#include "check.h"
#include <Eigen/Dense>

using namespace Eigen;

static double fixed_ops(const double *a) {
  Map<const Matrix3d> M(a);
  Vector3d v(a[0], a[4], a[8]);
  Matrix3d I = M.inverse();
  Matrix3d P = M.transpose() * M;
  Vector3d c = v.cross(M.col(1));
  return I.trace() + M.determinant() + P.norm() + c.squaredNorm() + (M * v).sum();
}

static double dynamic_ops(const double *a) {
  const int n = 4;
  Map<const MatrixXd> M(a, n, n);
  MatrixXd S = M * M.transpose() + MatrixXd::Identity(n, n) * 4.0;
  return S.squaredNorm() + S.trace();
}

/* forward mode only (reverse mode: see the README's "Not supported" list): both products of a
   dynamic matrix with its transpose; these crashed at run time or threw bad_alloc before */
static double dynamic_two_products(const double *a) {
  const int n = 4;
  Map<const MatrixXd> M(a, n, n);
  MatrixXd S = M * M.transpose();
  MatrixXd T = M.transpose() * M;
  return S.trace() + S(0, 1) + T.squaredNorm();
}
static double two_products_fd(const double *x, void *) { return dynamic_two_products(x); }

/* a small least-squares fit: loss = |A w - y|^2 through the normal equations */
static double lsq(const double *w) {
  Matrix<double, 6, 3> A;
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 3; j++)
      A(i, j) = cos(0.3 * i + j) + w[3 + j] * (i == j);
  Map<const Vector3d> p(w);
  Matrix<double, 6, 1> yv;
  for (int i = 0; i < 6; i++)
    yv(i) = sin(0.5 * i);
  Vector3d sol = (A.transpose() * A).ldlt().solve(A.transpose() * yv);
  return (A * p - yv).squaredNorm() + sol.squaredNorm();
}

static double fixed_fd(const double *x, void *) { return fixed_ops(x); }
static double dynamic_fd(const double *x, void *) { return dynamic_ops(x); }
static double lsq_fd(const double *x, void *) { return lsq(x); }

#define CHECK_GRAD(f, f_fd, n, x, tol)                                                              \
  do {                                                                                             \
    double g_[n] = {0}, fd_[n];                                                                    \
    __enzyme_autodiff((void *)f, enzyme_dup, x, g_);                                               \
    check_fd_grad(f_fd, 0, x, n, fd_);                                                             \
    for (int i_ = 0; i_ < n; i_++) {                                                               \
      CHECK_CLOSE(g_[i_], fd_[i_], tol, #f " reverse d/dx[%d]", i_);                               \
      double e_[n] = {0};                                                                          \
      e_[i_] = 1;                                                                                  \
      double t_ = __enzyme_fwddiff((void *)f, enzyme_dup, x, e_);                                  \
      CHECK_CLOSE(t_, g_[i_], 1e-10, #f " forward vs reverse [%d]", i_);                          \
    }                                                                                              \
  } while (0)

int main() {
  double a[9] = {4, 1, 0.5, 1, 3, 0.2, 0.5, 0.2, 2};
  CHECK_GRAD(fixed_ops, fixed_fd, 9, a, 1e-7);
  double b[16];
  check_fill(b, 16, -1, 1);
#ifdef DYNAMIC_REVERSE
  /* Only at -O2: elsewhere the dynamic-size evaluators stay out of line and reverse mode still
     crashes there (README, "Not supported"). Forward mode is checked below at every level. */
  CHECK_GRAD(dynamic_ops, dynamic_fd, 16, b, 1e-7);
#else
  (void)dynamic_fd;
#endif
  {
    double fd[16];
    check_fd_grad(two_products_fd, 0, b, 16, fd);
    for (int i = 0; i < 16; i++) {
      double e[16] = {0};
      e[i] = 1;
      CHECK_CLOSE(__enzyme_fwddiff((void *)dynamic_two_products, enzyme_dup, b, e), fd[i], 1e-7,
                  "dynamic_two_products forward d/dx[%d]", i);
    }
  }
  double w[6] = {0.3, -0.2, 0.5, 1.0, 0.5, 0.25};
#ifndef NO_LSQ /* crashes in reverse mode at -O3 -march=native (README, "Not supported") */
  CHECK_GRAD(lsq, lsq_fd, 6, w, 1e-7);
#else
  (void)w;
  (void)lsq_fd;
#endif
  return check_report();
}
