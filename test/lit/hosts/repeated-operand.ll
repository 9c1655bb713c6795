; At -O2 clang merges the loads of a marker used twice in one call, so one instruction is several
; operands of the same __enzyme_* call (here enzyme_out, and a computed tangent passed twice).
; Lowering must erase each such operand once; differentiation stays correct.
; RUN: %synthase-opt -no-postopt -S %s | %FileCheck %s
; RUN: %opt -passes=synthase -S %s | %FileCheck %s --check-prefix=GONE

@enzyme_out = external global i32

declare { double, double } @__enzyme_autodiff(ptr, ...)
declare double @__enzyme_fwddiff(ptr, ...)

define internal double @f(double %x, double %y) {
  %m = fmul double %x, %y
  ret double %m
}

define { double, double } @grad(double %x, double %y) {
  %mk = load i32, ptr @enzyme_out
  %r = call { double, double } (ptr, ...) @__enzyme_autodiff(ptr @f, i32 %mk, double %x, i32 %mk, double %y)
  ret { double, double } %r
}

define double @tangent(double %x, double %v) {
  %t = fmul double %v, 2.0
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double %t, double %x, double %t)
  ret double %r
}

; CHECK-LABEL: define { double, double } @grad(
; CHECK-NOT: load i32, ptr @enzyme_out
; CHECK: call {{.*}}@reverse_f
; CHECK-LABEL: define double @tangent(
; CHECK: %t = fmul double %v, 2.0
; CHECK: call double @fwddiffe_f(double %x, double %t, double %x, double %t)

; GONE-NOT: __enzyme_
; GONE-NOT: @enzyme_out
