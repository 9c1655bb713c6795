; Rust std's statics (the stderr lock behind eprintln!, here in legacy mangling, and a v0-mangled
; one) are std's bookkeeping: Rust emits them as untyped bytes, which for a user's static would get
; a shadow, but these get none, so the lock's atomics inlined into the differentiated function are
; accepted. A user's byte arena in the same module keeps its shadow. Formatting calls
; (core::fmt::write) are inactive library calls without a body.
; RUN: %synthase-opt -no-postopt -S %s -o %t
; RUN: %FileCheck %s < %t

; CHECK-NOT: _ZN3std2io5stdio6stderr8INSTANCE17h0123456789abcdefE.synthase.shadow
; CHECK-NOT: _RNvNtNtCs1234_3std2io5stdio6OUTPUT.synthase.shadow
; CHECK: @arena.synthase.shadow0 = internal global [64 x i8] zeroinitializer
; CHECK-NOT: _ZN3std2io5stdio6stderr8INSTANCE17h0123456789abcdefE.synthase.shadow
; CHECK-NOT: _RNvNtNtCs1234_3std2io5stdio6OUTPUT.synthase.shadow
; CHECK: define internal {{.*}}@augmented_logged(
; CHECK: define internal {{.*}}@reverse_logged(
; CHECK: define internal {{.*}}@fwddiffe_logged(

@_ZN3std2io5stdio6stderr8INSTANCE17h0123456789abcdefE = internal global [24 x i8] zeroinitializer, align 8
@_RNvNtNtCs1234_3std2io5stdio6OUTPUT = internal global [16 x i8] zeroinitializer, align 8
@arena = internal global [64 x i8] zeroinitializer, align 8

declare double @__enzyme_autodiff(ptr, ...)
declare double @__enzyme_fwddiff(ptr, ...)
declare i1 @_ZN4core3fmt5write17h00112233445566778E(ptr, ptr, ptr)

define internal double @logged(double %x) {
  %y = fmul double %x, %x
  store double %y, ptr @arena, align 8
  store atomic i64 1, ptr @_ZN3std2io5stdio6stderr8INSTANCE17h0123456789abcdefE release, align 8
  %o = getelementptr inbounds i8, ptr @_RNvNtNtCs1234_3std2io5stdio6OUTPUT, i64 8
  %old = atomicrmw xchg ptr %o, i64 0 acquire, align 8
  %e = call i1 @_ZN4core3fmt5write17h00112233445566778E(ptr null, ptr null, ptr null)
  store atomic i64 0, ptr @_ZN3std2io5stdio6stderr8INSTANCE17h0123456789abcdefE release, align 8
  %z = load double, ptr @arena, align 8
  %r = fmul double %z, %x
  ret double %r
}

define double @grad(double %x) {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @logged, double %x)
  ret double %d
}

define double @tangent(double %x) {
  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @logged, double %x, double 1.0)
  ret double %d
}
