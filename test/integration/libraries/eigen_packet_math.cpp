// Eigen's vectorized coefficient-wise math (`v.array().exp()`, log, log1p, expm1, sqrt, rsqrt,
// sin, cos, tanh, pow) and its packet select (a Householder QR solve with SSE2 only), and
// fixed-size 3x3 solvers whose packets Eigen aligns by the primal's address. Before: the packet
// exp/log were refused (float bits moved through integers, an optimization barrier in inline
// asm), pselect was refused at default flags, rsqrt14 had no rule with AVX-512, and the 3x3
// LLT/LDLT/PartialPivLU/FullPivLU derivatives crashed at -O0 (aligned packet moves on shadows).
// Now the clone calls the math intrinsics Eigen's packet functions compute (Analysis/PacketMath.cpp)
// and generated code moves vectors at their lanes' alignment (Engine/ShadowAlignment.cpp).
// Two Householder QR solves in one function spent the clone's inlining budget and left hundreds
// of one-line accessors and packet helpers out of line; the reverse gradient came out wrong by a
// few percent (forward was right). Callees of a dozen instructions are now inlined past the
// budget, as always_inline ones were.
// Reverse mode against central finite differences, forward mode against reverse.
// RUN: %synthase-cxx -O0 -I%inputs -I/usr/include/eigen3 %s -o %t0 -lm && %t0
// RUN: %synthase-cxx -O2 -I%inputs -I/usr/include/eigen3 %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -O3 -march=native -I%inputs -I/usr/include/eigen3 %s -o %t3 -lm && %t3
#include "check.h"
#include <Eigen/Dense>
#include <cmath>

using namespace Eigen;
enum { N = 19 }; // a packet tail on every target

static double exp_log(const double *x) {
  Map<const VectorXd> v(x, N);
  return v.array().exp().sum() + (v.array() + 2.0).log().sum() + v.array().log1p().sum() +
         (0.5 * v.array()).expm1().sum();
}
static double roots(const double *x) {
  Map<const VectorXd> v(x, N);
  ArrayXd w = v.array() + 1.5;
  return w.sqrt().sum() + w.rsqrt().sum() + w.pow(1.5).sum() + (w.pow(v.array())).sum();
}
static double trig_float(const float *x) {
  Map<const VectorXf> v(x, N);
  return (v.array().sin() * v.array().cos()).sum() + v.array().tanh().sum() + v.array().exp().sum();
}
static double qr_solve(const double *a) {
  Map<const Matrix3d> A(a);
  Vector3d b(1, 2, 3);
  return A.householderQr().solve(b).sum() + A.colPivHouseholderQr().solve(b).squaredNorm();
}
static double solvers3(const double *a) {
  Map<const Matrix3d> M(a);
  Matrix3d S = M * M.transpose() + 3 * Matrix3d::Identity();
  Vector3d b(1, 2, 3);
  return S.llt().solve(b).sum() + S.ldlt().solve(b).squaredNorm() + M.partialPivLu().solve(b).sum() +
         M.fullPivLu().solve(b).sum();
}

template <class T> static void check(double (*f)(const T *), const T *x0, int n, double tol, const char *name) {
  T x[N], dx[N] = {0};
  for (int i = 0; i < n; i++) x[i] = x0[i];
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx);
  for (int i = 0; i < n; i++) {
    T p[N], m[N], d[N] = {0};
    for (int k = 0; k < n; k++) p[k] = m[k] = x0[k];
    double h = sizeof(T) == 4 ? 1e-2 : 1e-6;
    p[i] += h;
    m[i] -= h;
    double fd = (f(p) - f(m)) / (2 * h);
    CHECK_CLOSE(dx[i], fd, tol, "%s d/dx[%d]", name, i);
    d[i] = 1;
    double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, d);
    CHECK_CLOSE(t, dx[i], sizeof(T) == 4 ? 1e-5 : 1e-10, "%s forward vs reverse [%d]", name, i);
  }
}

int main() {
  double x[N];
  float xf[N];
  for (int i = 0; i < N; i++) {
    x[i] = 0.1 + 0.07 * i;
    xf[i] = (float)(0.2 + 0.05 * i);
  }
  check(exp_log, x, N, 1e-6, "exp/log/log1p/expm1");
  check(roots, x, N, 1e-6, "sqrt/rsqrt/pow");
  check(trig_float, xf, N, 2e-3, "float sin/cos/tanh/exp");
  const double a[9] = {2.0, 0.3, -0.4, 0.1, 1.5, 0.6, -0.2, 0.25, 1.8};
  check(qr_solve, a, 9, 1e-6, "Householder QR solves");
  check(solvers3, a, 9, 1e-6, "3x3 LLT/LDLT/LU solves");
  return check_report();
}
