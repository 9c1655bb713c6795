; Found by the verifier runs (issue 8; fixed by the lead with a SetVector in eraseCallAndMarkers): in optimized IR (clang -O2 -emit-llvm, or lld's full-LTO
; pipeline) the marker loads are CSE'd, so one `load i32 @enzyme_const` is passed twice to the
; same call. eraseCallAndMarkers collects the call's operands and erases each dead one: the
; repeated operand is erased twice and synthase-opt crashes (segfault in
; Instruction::eraseFromParent). Same crash on clang -O2 IR of multi_out.c, vector_mode.c and
; kernels.c.
; RUN: %synthase-opt %s -S -o - | FileCheck %s
; CHECK: define double @g(
; CHECK-NOT: __enzyme_autodiff
; CHECK-NOT: @enzyme_const
@enzyme_const = external local_unnamed_addr global i32, align 4

define internal double @f(double %a, double %b, double %c) {
  %m = fmul double %a, %b
  %r = fmul double %m, %c
  ret double %r
}

define double @g(double %0, double %1, double %2) {
  %4 = load i32, ptr @enzyme_const, align 4
  %5 = tail call double (ptr, ...) @__enzyme_autodiff(ptr nonnull @f, double %0, i32 %4, double %1, i32 %4, double %2)
  ret double %5
}

declare double @__enzyme_autodiff(ptr, ...)
