; A copy of bytes that hold a double on one path and a pointer on the other (a union) cannot be
; told to carry a pointer's shadow or a double's adjoint: refused by name, never guessed.
; (When the last store before the copy decides it, as for a lambda capture moved with its
; std::function, the copy is differentiated: integration/std_function_captures.cpp.)
; RUN: not %synthase-opt %s -o /dev/null 2>&1 | FileCheck %s
; CHECK: error: synthase: in function 'f': the bytes this copy moves are used both as a pointer and as a floating-point value
; CHECK: hint: store the value in a variable of one type before copying it
@enzyme_out = external global i32
@enzyme_dup = external global i32

declare void @observe(ptr)
declare double @__enzyme_autodiff(ptr, ...)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

define internal double @f(double %x, ptr %buf, i1 %mode) {
  %a = alloca [16 x i8], align 8
  %b = alloca [16 x i8], align 8
  br i1 %mode, label %num, label %ptr
num:
  %sq = fmul double %x, %x
  store double %sq, ptr %a, align 8
  br label %join
ptr:
  store ptr %buf, ptr %a, align 8
  br label %join
join:
  call void @observe(ptr %a)
  call void @llvm.memcpy.p0.p0.i64(ptr %b, ptr %a, i64 16, i1 false)
  call void @observe(ptr %b)
  %v = load double, ptr %b, align 8
  ret double %v
}

define double @run(double %x, ptr %buf, ptr %dbuf) {
  %o = load i32, ptr @enzyme_out
  %d = load i32, ptr @enzyme_dup
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, i32 %o, double %x, i32 %d, ptr %buf, ptr %dbuf, i1 true)
  ret double %r
}
