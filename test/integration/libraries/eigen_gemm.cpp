// Eigen products large enough for the blocked GEMM path (rows + cols + depth >= 20): packed
// blocks and the gebp kernel, whose SSE2 broadcasts shuffle a double's bits as i32 lanes
// (`_mm_shuffle_epi32`). Reverse mode used to drop those adjoints silently (maxerr 2.78 on
// 16x8 * 8x4). Gradient vs central finite differences, forward mode vs reverse mode.
// The AVX-512 kernel (-O3 -march=native) and sizes below the threshold: eigen_map_products.cpp.
// RUN: %synthase-cxx -O0 -I%inputs -I/usr/include/eigen3 %s -o %t0 -lm && %t0
// RUN: %synthase-cxx -O2 -I%inputs -I/usr/include/eigen3 %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -O3 -I%inputs -I/usr/include/eigen3 %s -o %t3 -lm && %t3
#include "check.h"
#include <Eigen/Dense>

using namespace Eigen;

static double loss(const double *W, const double *X, const double *Y, long m, long n, long k) {
  Map<const MatrixXd> Wm(W, n, k), Xm(X, m, n), Ym(Y, m, k);
  MatrixXd R = Xm * Wm - Ym;
  return 0.5 * R.squaredNorm();
}

static void check_size(long m, long n, long k) {
  double W[64], X[256], Y[256], g[64] = {0};
  for (long i = 0; i < n * k; i++) W[i] = 0.1 * sin(i);
  for (long i = 0; i < m * n; i++) X[i] = cos(0.3 * i);
  for (long i = 0; i < m * k; i++) Y[i] = sin(0.7 * i);
  __enzyme_autodiff((void *)loss, enzyme_dup, W, g, enzyme_const, X, enzyme_const, Y, enzyme_const, m,
                    enzyme_const, n, enzyme_const, k);
  for (long i = 0; i < n * k; i++) {
    double h = check_step(W[i]), w = W[i];
    W[i] = w + h;
    double p = loss(W, X, Y, m, n, k);
    W[i] = w - h;
    double q = loss(W, X, Y, m, n, k);
    W[i] = w;
    CHECK_CLOSE(g[i], (p - q) / (2 * h), 1e-6, "reverse dW[%ld] (%ldx%ldx%ld)", i, m, n, k);
    double e[64] = {0};
    e[i] = 1;
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, W, e, enzyme_const, X, enzyme_const, Y, enzyme_const, m,
                                enzyme_const, n, enzyme_const, k);
    CHECK_CLOSE(t, g[i], 1e-10, "forward vs reverse dW[%ld] (%ldx%ldx%ld)", i, m, n, k);
  }
}

int main() {
  check_size(16, 8, 4);
  check_size(8, 8, 8);
  check_size(9, 7, 5);
  return check_report();
}
