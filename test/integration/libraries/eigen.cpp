// Eigen 3 (Debian libeigen3-dev) in both modes: fixed-size and dynamic matrices, products (two in
// one function), transposes, inverse, determinant, norms, cross products, LLT/LDLT/PartialPivLU
// solves and least-squares fits, each gradient checked against central finite differences and
// forward mode against reverse mode. Eigen's dynamic-size evaluators are large once inlined, and
// its allocation wrappers, evaluators and packet helpers used to stay out of line: reverse mode
// then stored null shadows for the matrices' storage and crashed (two products, solves, -O0).
// At -march=native Eigen reaches FMA through inline asm (`vfmadd231pd $1, $2, $0`), which is
// rewritten as llvm.fma; no EIGEN_DONT_VECTORIZE is needed.
// RUN: %synthase-cxx -O0 -I%inputs -I/usr/include/eigen3 %s -o %t0 -lm && %t0
// RUN: %synthase-cxx -O2 -I%inputs -I/usr/include/eigen3 %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -O3 -march=native -I%inputs -I/usr/include/eigen3 %s -o %t3 -lm && %t3
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

/* both products of a dynamic matrix with its transpose, and a matrix-vector product */
static double dynamic_two_products(const double *a) {
  const int n = 4;
  Map<const MatrixXd> M(a, n, n);
  MatrixXd S = M * M.transpose();
  MatrixXd T = M.transpose() * M;
  VectorXd v = M.col(2);
  VectorXd w = S * v;
  return S.trace() + S(0, 1) + T.squaredNorm() + w.squaredNorm() + (M * M * v).sum();
}

/* A = M M^T + 4 I (symmetric positive definite), b = the first column of M */
static double llt_solve(const double *a) {
  const int n = 4;
  Map<const MatrixXd> M(a, n, n);
  MatrixXd A = M * M.transpose() + MatrixXd::Identity(n, n) * 4.0;
  VectorXd b = M.col(0);
  VectorXd x = A.llt().solve(b);
  return x.squaredNorm() + x.sum();
}

static double ldlt_solve(const double *a) {
  const int n = 4;
  Map<const MatrixXd> M(a, n, n);
  MatrixXd A = M.transpose() * M + MatrixXd::Identity(n, n) * 2.0;
  VectorXd b = M.row(1).transpose();
  VectorXd x = A.ldlt().solve(b);
  return x.squaredNorm() + 0.5 * x(2);
}

static double lu_solve(const double *a) {
  const int n = 4;
  Map<const MatrixXd> M(a, n, n);
  MatrixXd A = M + MatrixXd::Identity(n, n) * 3.0;
  VectorXd b = VectorXd::LinSpaced(n, 1.0, 2.0) + M.col(3);
  VectorXd x = A.partialPivLu().solve(b);
  return x.squaredNorm();
}

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

/* the same with dynamic sizes: w holds 3 weights, then a scale of the design matrix */
static double lsq_dynamic(const double *w) {
  const int m = 8, k = 3;
  MatrixXd A(m, k);
  VectorXd y(m);
  for (int i = 0; i < m; i++) {
    for (int j = 0; j < k; j++)
      A(i, j) = cos(0.4 * i + 0.7 * j) * (1.0 + w[3] * j);
    y(i) = sin(0.3 * i);
  }
  Map<const VectorXd> p(w, k);
  VectorXd r = A * p - y;
#ifdef __AVX512F__
  /* Eigen 3.4's AVX-512 path gives this 3x3 normal-equation solve erratic values in the primal
     itself (plain clang++-22 -O3 -march=native, no plugin: f(w + h e3) jumps for some h), so
     finite differences cannot check it there */
  return r.squaredNorm();
#else
  VectorXd sol = (A.transpose() * A).llt().solve(A.transpose() * y);
  return r.squaredNorm() + sol.squaredNorm();
#endif
}

static double fixed_fd(const double *x, void *) { return fixed_ops(x); }
static double dynamic_fd(const double *x, void *) { return dynamic_ops(x); }
static double two_products_fd(const double *x, void *) { return dynamic_two_products(x); }
static double llt_fd(const double *x, void *) { return llt_solve(x); }
static double ldlt_fd(const double *x, void *) { return ldlt_solve(x); }
static double lu_fd(const double *x, void *) { return lu_solve(x); }
static double lsq_fd(const double *x, void *) { return lsq(x); }
static double lsq_dynamic_fd(const double *x, void *) { return lsq_dynamic(x); }

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
  CHECK_GRAD(dynamic_ops, dynamic_fd, 16, b, 1e-7);
  CHECK_GRAD(dynamic_two_products, two_products_fd, 16, b, 1e-7);
  CHECK_GRAD(llt_solve, llt_fd, 16, b, 1e-7);
  CHECK_GRAD(ldlt_solve, ldlt_fd, 16, b, 1e-7);
  CHECK_GRAD(lu_solve, lu_fd, 16, b, 1e-7);
  double w[6] = {0.3, -0.2, 0.5, 1.0, 0.5, 0.25};
  CHECK_GRAD(lsq, lsq_fd, 6, w, 1e-7);
  double wd[4] = {0.3, -0.2, 0.5, 0.1};
  CHECK_GRAD(lsq_dynamic, lsq_dynamic_fd, 4, wd, 1e-7);
  return check_report();
}
