// A join entered from one of two edges of the branch that dominates it: the reverse sweep
// branches on that condition, rebuilt from the counter and the arguments, and the forward sweep
// tapes no predecessor index (Reverse/ReplayValues.cpp, branchTellingPred). det's minors tape
// the minor and the sign per iteration that recurses, nothing for the `continue` or the early
// return. A condition on a loop-carried float cannot be rebuilt: that join keeps its index.
// RUN: %synthase-cc -O1 -mllvm -synthase-tape-report -S -emit-llvm %s -o /dev/null 2>&1 | %FileCheck %s
// RUN: %clang -O1 -Xclang -disable-llvm-passes -S -emit-llvm %s -o %t.ll
// RUN: %opt -passes='synthase<no-postopt>' -S %t.ll | %FileCheck %s --check-prefix=IR

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

static double minor_of(const double *A, int ell, int r, unsigned used) {
  if (r == ell)
    return 1;
  double s = 0, sign = 1;
  for (int c = 0; c < ell; ++c) {
    if (used & (1u << c))
      continue;
    s += sign * A[r * ell + c] * minor_of(A, ell, r + 1, used | (1u << c));
    sign = -sign;
  }
  return s;
}
static double det(const double *A, int ell) { return minor_of(A, ell, 0, 0); }
void grad_det(const double *A, double *dA, int ell) {
  __enzyme_autodiff((void *)det, enzyme_dup, A, dA, enzyme_const, ell);
}

static double carried(const double *x, long n) {
  double s = 0.1;
  for (long i = 0; i < n; ++i)
    s = s > 0.5 ? s * 0.5 + x[i] : s + x[i] * x[i];
  return s;
}
void grad_carried(const double *x, double *dx, long n) {
  __enzyme_autodiff((void *)carried, enzyme_dup, x, dx, enzyme_const, n);
}

// The report lists the gradients in the order they were built: run it once per prefix.
// RUN: %synthase-cc -O1 -mllvm -synthase-tape-report -S -emit-llvm %s -o /dev/null 2>&1 | %FileCheck %s --check-prefix=KEPT

// CHECK-LABEL: tape of augmented_minor_of:
// CHECK-NEXT: block  (16 bytes):
// CHECK-NEXT: call double @augmented_minor_of(
// CHECK-NEXT: phi double
// CHECK-NOT: phi i32
// CHECK-LABEL: tape of augmented_det:
// CHECK-NOT: block

// KEPT-LABEL: tape of augmented_carried:
// KEPT-NEXT: block  (8 bytes):
// KEPT-NEXT: phi i32

// The reverse of the loop's latch branches on `used & (1u << c)`, rebuilt from the counter; the
// reverse of the return block on `r == ell`:
// IR-LABEL: define internal void @reverse_minor_of(ptr %0, ptr %d_, i32 %1, i32 %2, i32 %3,
// IR-NOT: switch
// IR: icmp eq i32 %2, %1
// IR: [[BIT:%.*]] = shl nuw i32 1, [[C:%.*]]
// IR-NEXT: [[AND:%.*]] = and i32 %3, [[BIT]]
// IR-NEXT: [[TEST:%.*]] = icmp eq i32 [[AND]], 0
// IR-NEXT: br i1 [[TEST]]
// IR-NOT: switch
// IR: {{^}}}
