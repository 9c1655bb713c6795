// Enzyme's C convention: a derivative called inside a hot loop must not stay an out-of-line call
// at -O2 (issue 6). The source is big enough, and each derivative called from two loops, so that
// the inliner's cost model alone would keep `augmented_f` / `reverse_f` / `fwddiffe_f` calls in
// the loops; the inlining post-pass asks for them to be inlined there. The numbers are checked too.
// RUN: %synthase-cc -O2 -I%inputs -S -emit-llvm %s -o - | %FileCheck %s
// RUN: %synthase-cc -O3 -I%inputs -S -emit-llvm %s -o - | %FileCheck %s
// RUN: %synthase-cc -O2 -I%inputs %s -o %t -lm && %t
// The benchmark's "without inlining" variant (a hidden option) keeps every derivative a call:
// RUN: %synthase-cc -O2 -mllvm -synthase-keep-derivatives-out-of-line -I%inputs -S -emit-llvm %s -o - | %FileCheck %s --check-prefix=KEEP
// RUN: %synthase-cc -O2 -mllvm -synthase-keep-derivatives-out-of-line -I%inputs %s -o %t.keep -lm && %t.keep
#include "check.h"

static double f(double x, double a) {
  double s = 0;
  for (int k = 0; k < 8; ++k) {
    double t = sin(a * x + k) * cos(x - k) + exp(-x * x * k) / (1 + x * x);
    s += t * t + log(1 + t * t) + sqrt(1 + s * s) + tanh(t) * atan(s);
  }
  return s * x + pow(x, 3.0);
}

// CHECK-LABEL: define {{.*}}double @sum_grad(
// CHECK-NOT: call {{.*}}@{{(augmented|reverse|fwddiffe)_}}
// CHECK: ret double
// KEEP-LABEL: define {{.*}}double @sum_grad(
// KEEP: call {{.*}}@augmented_f
// KEEP: call {{.*}}@reverse_f
double sum_grad(const double *xs, int n, double a) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += __enzyme_autodiff((void *)f, enzyme_out, xs[i], enzyme_const, a);
  return s;
}

// CHECK-LABEL: define {{.*}}double @sum_grad_scaled(
// CHECK-NOT: call {{.*}}@{{(augmented|reverse|fwddiffe)_}}
// CHECK: ret double
double sum_grad_scaled(const double *xs, int n, double a) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += 2.0 * __enzyme_autodiff((void *)f, enzyme_out, xs[i], enzyme_const, a);
  return s;
}

// CHECK-LABEL: define {{.*}}double @sum_tangent(
// CHECK-NOT: call {{.*}}@{{(augmented|reverse|fwddiffe)_}}
// CHECK: ret double
// KEEP-LABEL: define {{.*}}double @sum_tangent(
// KEEP: call {{.*}}@fwddiffe_f
double sum_tangent(const double *xs, int n, double a) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += __enzyme_fwddiff((void *)f, xs[i], 1.0, enzyme_const, a);
  return s;
}

// CHECK-LABEL: define {{.*}}double @sum_tangent_scaled(
// CHECK-NOT: call {{.*}}@{{(augmented|reverse|fwddiffe)_}}
// CHECK: ret double
double sum_tangent_scaled(const double *xs, int n, double a) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += __enzyme_fwddiff((void *)f, xs[i], 2.0, enzyme_const, a);
  return s;
}

static double fa(double x, void *ctx) { return f(x, *(double *)ctx); }

int main(void) {
  enum { N = 32 };
  double xs[N], a = 0.7, d = 0;
  for (int i = 0; i < N; ++i) {
    xs[i] = -1.2 + 2.5 * i / N;
    d += check_fd(fa, &a, xs[i]);
  }
  CHECK_CLOSE(sum_grad(xs, N, a), d, 1e-6, "sum_grad");
  CHECK_CLOSE(sum_grad_scaled(xs, N, a), 2 * d, 1e-6, "sum_grad_scaled");
  CHECK_CLOSE(sum_tangent(xs, N, a), d, 1e-6, "sum_tangent");
  CHECK_CLOSE(sum_tangent_scaled(xs, N, a), 2 * d, 1e-6, "sum_tangent_scaled");
  CHECK_CLOSE(sum_grad(xs, N, a), sum_tangent(xs, N, a), 1e-12, "reverse == forward");
  return check_report();
}
