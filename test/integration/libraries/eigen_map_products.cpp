// Eigen products of `Map`s into `MatrixXd` temporaries, at small and odd sizes (the lazy
// coefficient path, the small-product path and, from rows + cols + depth >= 20, the blocked GEMM
// with its AVX-512 kernel under -march=native). Some operands are enzyme_const: the evaluator and
// packing structs then hold a pointer whose shadow is null, and non-inlined callees that read it
// used to crash in reverse mode. Reverse vs central finite differences, forward vs reverse.
// RUN: %synthase-cxx -O0 -I%inputs -I/usr/include/eigen3 %s -o %t0 -lm && %t0
// RUN: %synthase-cxx -O2 -I%inputs -I/usr/include/eigen3 %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -O3 -march=native -I%inputs -I/usr/include/eigen3 %s -o %t3 -lm && %t3
#include "check.h"
#include <Eigen/Dense>

using namespace Eigen;

// W active, X and Y constant.
static double residual(const double *W, const double *X, const double *Y, long m, long n, long k) {
  Map<const MatrixXd> Wm(W, n, k), Xm(X, m, n), Ym(Y, m, k);
  MatrixXd R = Xm * Wm - Ym;
  return 0.5 * R.squaredNorm();
}

// Two products of one active Map into two temporaries.
static double two_products(const double *A, long n) {
  Map<const MatrixXd> M(A, n, n);
  MatrixXd S = M * M.transpose();
  MatrixXd T = M.transpose() * M;
  return T.squaredNorm() + S.sum();
}

// Matrix (constant) times an active vector, and an active matrix times a constant vector.
static double mat_vec(const double *A, const double *v, long n) {
  Map<const MatrixXd> Am(A, n, n);
  Map<const VectorXd> vm(v, n);
  VectorXd y = Am * vm;
  VectorXd z = Am.transpose() * y;
  return y.squaredNorm() + z.sum();
}

static void check_residual(long m, long n, long k) {
  double W[256], X[512], Y[512], g[256] = {0};
  for (long i = 0; i < n * k; i++) W[i] = 0.1 * sin(i + 1.0);
  for (long i = 0; i < m * n; i++) X[i] = cos(0.3 * i);
  for (long i = 0; i < m * k; i++) Y[i] = sin(0.7 * i);
  __enzyme_autodiff((void *)residual, enzyme_dup, W, g, enzyme_const, X, enzyme_const, Y, enzyme_const, m,
                    enzyme_const, n, enzyme_const, k);
  for (long i = 0; i < n * k; i++) {
    double h = check_step(W[i]), w = W[i];
    W[i] = w + h;
    double p = residual(W, X, Y, m, n, k);
    W[i] = w - h;
    double q = residual(W, X, Y, m, n, k);
    W[i] = w;
    CHECK_CLOSE(g[i], (p - q) / (2 * h), 1e-6, "reverse dW[%ld] (%ldx%ldx%ld)", i, m, n, k);
    double e[256] = {0};
    e[i] = 1;
    double t = __enzyme_fwddiff((void *)residual, enzyme_dup, W, e, enzyme_const, X, enzyme_const, Y,
                                enzyme_const, m, enzyme_const, n, enzyme_const, k);
    CHECK_CLOSE(t, g[i], 1e-10, "forward vs reverse dW[%ld] (%ldx%ldx%ld)", i, m, n, k);
  }
}

static void check_two_products(long n) {
  double A[64], g[64] = {0};
  for (long i = 0; i < n * n; i++) A[i] = 0.1 * i + (i % (n + 1) == 0);
  __enzyme_autodiff((void *)two_products, enzyme_dup, A, g, enzyme_const, n);
  for (long i = 0; i < n * n; i++) {
    double h = check_step(A[i]), a = A[i];
    A[i] = a + h;
    double p = two_products(A, n);
    A[i] = a - h;
    double q = two_products(A, n);
    A[i] = a;
    CHECK_CLOSE(g[i], (p - q) / (2 * h), 1e-6, "two products: reverse dA[%ld] (n=%ld)", i, n);
    double e[64] = {0};
    e[i] = 1;
    double t = __enzyme_fwddiff((void *)two_products, enzyme_dup, A, e, enzyme_const, n);
    CHECK_CLOSE(t, g[i], 1e-10, "two products: forward vs reverse dA[%ld] (n=%ld)", i, n);
  }
}

static void check_mat_vec(long n) {
  double A[144], v[12], gA[144] = {0}, gv[12] = {0};
  for (long i = 0; i < n * n; i++) A[i] = cos(0.37 * i) + (i % (n + 1) == 0);
  for (long i = 0; i < n; i++) v[i] = 0.5 - 0.2 * i;
  // The vector active, the matrix constant; then the matrix active, the vector constant.
  __enzyme_autodiff((void *)mat_vec, enzyme_const, A, enzyme_dup, v, gv, enzyme_const, n);
  __enzyme_autodiff((void *)mat_vec, enzyme_dup, A, gA, enzyme_const, v, enzyme_const, n);
  for (long i = 0; i < n; i++) {
    double h = check_step(v[i]), x = v[i];
    v[i] = x + h;
    double p = mat_vec(A, v, n);
    v[i] = x - h;
    double q = mat_vec(A, v, n);
    v[i] = x;
    CHECK_CLOSE(gv[i], (p - q) / (2 * h), 1e-6, "mat_vec: reverse dv[%ld] (n=%ld)", i, n);
    double e[12] = {0};
    e[i] = 1;
    double t = __enzyme_fwddiff((void *)mat_vec, enzyme_const, A, enzyme_dup, v, e, enzyme_const, n);
    CHECK_CLOSE(t, gv[i], 1e-10, "mat_vec: forward vs reverse dv[%ld] (n=%ld)", i, n);
  }
  for (long i = 0; i < n * n; i++) {
    double h = check_step(A[i]), a = A[i];
    A[i] = a + h;
    double p = mat_vec(A, v, n);
    A[i] = a - h;
    double q = mat_vec(A, v, n);
    A[i] = a;
    CHECK_CLOSE(gA[i], (p - q) / (2 * h), 1e-6, "mat_vec: reverse dA[%ld] (n=%ld)", i, n);
  }
}

int main() {
  static const long sizes[][3] = {{1, 1, 1}, {2, 3, 1}, {3, 4, 2}, {4, 4, 4}, {5, 3, 7},
                                  {7, 5, 3}, {9, 2, 9}, {16, 8, 4}, {9, 11, 13}};
  for (auto &s : sizes)
    check_residual(s[0], s[1], s[2]);
  for (long n : {1, 2, 3, 4, 5, 7})
    check_two_products(n);
  for (long n : {1, 3, 4, 7, 9})
    check_mat_vec(n);
  return check_report();
}
