; Pointers into a dup argument kept in heap memory and read back as a vector of pointers (the
; shape the SLP vectorizer emits at -O3 -flto: `load <4 x ptr>`, then extractelement). The shadow
; of the vector load is the vector of shadow pointers stored with it; before, the gradient for `x`
; was silently all zero. f(x) = sum_k (k+1) * x[2k]^2, so df/dx[2k] = 2 (k+1) x[2k].
; RUN: %synthase-opt %s -o %t.ll
; RUN: %clang -O1 %t.ll %S/Inputs/ptr_vectors_driver.c -o %t -lm && %t
; RUN: %synthase-opt -no-postopt %s -S -o - | FileCheck %s
; CHECK: load <4 x ptr>, ptr %rows.shadow
target triple = "x86_64-pc-linux-gnu"

declare ptr @malloc(i64)
declare void @free(ptr)
declare double @__enzyme_autodiff(ptr, ...)
declare double @__enzyme_fwddiff(ptr, ...)
@enzyme_dup = external global i32
@enzyme_const = external global i32

define internal double @f(ptr %x) {
entry:
  %rows = call ptr @malloc(i64 32)
  %p0 = getelementptr double, ptr %x, i64 0
  %p1 = getelementptr double, ptr %x, i64 2
  %p2 = getelementptr double, ptr %x, i64 4
  %p3 = getelementptr double, ptr %x, i64 6
  store ptr %p0, ptr %rows, align 8
  %r1 = getelementptr ptr, ptr %rows, i64 1
  store ptr %p1, ptr %r1, align 8
  %r2 = getelementptr ptr, ptr %rows, i64 2
  store ptr %p2, ptr %r2, align 8
  %r3 = getelementptr ptr, ptr %rows, i64 3
  store ptr %p3, ptr %r3, align 8
  %back = load <4 x ptr>, ptr %rows, align 8
  %swz = shufflevector <4 x ptr> %back, <4 x ptr> poison, <4 x i32> <i32 0, i32 1, i32 2, i32 3>
  %e0 = extractelement <4 x ptr> %swz, i32 0
  %e1 = extractelement <4 x ptr> %swz, i32 1
  %e2 = extractelement <4 x ptr> %swz, i32 2
  %e3 = extractelement <4 x ptr> %back, i32 3
  %a0 = load double, ptr %e0
  %a1 = load double, ptr %e1
  %a2 = load double, ptr %e2
  %a3 = load double, ptr %e3
  %s0 = fmul double %a0, %a0
  %q1 = fmul double %a1, %a1
  %s1 = fmul double %q1, 2.0
  %q2 = fmul double %a2, %a2
  %s2 = fmul double %q2, 3.0
  %q3 = fmul double %a3, %a3
  %s3 = fmul double %q3, 4.0
  %t0 = fadd double %s0, %s1
  %t1 = fadd double %t0, %s2
  %t2 = fadd double %t1, %s3
  call void @free(ptr %rows)
  ret double %t2
}

define double @grad_f(ptr %x, ptr %dx) {
  %d = load i32, ptr @enzyme_dup
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, i32 %d, ptr %x, ptr %dx)
  ret double %r
}

define double @tangent_f(ptr %x, ptr %dx) {
  %d = load i32, ptr @enzyme_dup
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %d, ptr %x, ptr %dx)
  ret double %r
}
