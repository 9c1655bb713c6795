; A pointer that crosses memory as its integer bits, next to out-of-line callees that read or
; write the same memory as a pointer (SROA and InstCombine produce both shapes when a slot is
; used as a pointer and as an integer, as in Eigen's evaluators): `store i64 (ptrtoint p)` stores
; p's shadow into the shadow memory, and `inttoptr (load i64)` reads its shadow from there, like
; a pointer load. Before, the callee read a null shadow pointer and the reverse sweep crashed.
; f(x) = sum_i (i+1) x[i]^2 + x[1]^3.
; RUN: %synthase-opt %s -o %t.ll
; RUN: %clang -O1 %t.ll %S/Inputs/pointer_bits_driver.c -o %t -lm && %t
; RUN: %synthase-opt -no-postopt %s -S -o - | FileCheck %s
; CHECK-LABEL: define internal double @augmented_f(
; CHECK: store i64 %bits, ptr %cell
; CHECK-NEXT: store ptr %d_x, ptr %cell.shadow
; CHECK: %q.shadow = load ptr, ptr %cell2.shadow
target triple = "x86_64-pc-linux-gnu"

declare ptr @malloc(i64)
declare void @free(ptr)
declare double @__enzyme_autodiff(ptr, ...)
declare double @__enzyme_fwddiff(ptr, ...)
@enzyme_dup = external global i32

; reads the pointer kept in %cell, returns sum_i (i+1) p[i]^2 over 4 elements (recursive, so out of line)
define internal double @sum_sq(ptr %cell, i32 %depth) {
entry:
  %more = icmp sgt i32 %depth, 0
  br i1 %more, label %recurse, label %work
recurse:
  %d1 = sub i32 %depth, 1
  %r = call double @sum_sq(ptr %cell, i32 %d1)
  ret double %r
work:
  %p = load ptr, ptr %cell, align 8
  br label %loop
loop:
  %i = phi i64 [ 0, %work ], [ %i1, %loop ]
  %s = phi double [ 0.0, %work ], [ %s1, %loop ]
  %e = getelementptr double, ptr %p, i64 %i
  %v = load double, ptr %e, align 8
  %w = add i64 %i, 1
  %wf = sitofp i64 %w to double
  %vv = fmul double %v, %v
  %t = fmul double %vv, %wf
  %s1 = fadd double %s, %t
  %i1 = add nuw nsw i64 %i, 1
  %c = icmp ult i64 %i1, 4
  br i1 %c, label %loop, label %done
done:
  ret double %s1
}

; stores %p into %cell as a pointer (recursive, so out of line)
define internal void @store_ptr(ptr %cell, ptr %p, i32 %depth) {
entry:
  %more = icmp sgt i32 %depth, 0
  br i1 %more, label %recurse, label %work
recurse:
  %d1 = sub i32 %depth, 1
  call void @store_ptr(ptr %cell, ptr %p, i32 %d1)
  ret void
work:
  store ptr %p, ptr %cell, align 8
  ret void
}

; f(x) = sum_i (i+1) x[i]^2 + x[1]^3, the pointer to x crossing memory as integer bits twice
define internal double @f(ptr %x) {
entry:
  %cell = call ptr @malloc(i64 16)
  ; a pointer stored as its integer bits, read back as a pointer by the callee
  %bits = ptrtoint ptr %x to i64
  store i64 %bits, ptr %cell, align 8
  %a = call double @sum_sq(ptr %cell, i32 2)
  ; a pointer stored by the callee, read back here as integer bits and turned into a pointer
  %cell2 = getelementptr i8, ptr %cell, i64 8
  call void @store_ptr(ptr %cell2, ptr %x, i32 2)
  %v = load i64, ptr %cell2, align 8
  %q = inttoptr i64 %v to ptr
  %e = getelementptr double, ptr %q, i64 1
  %y = load double, ptr %e, align 8
  %y2 = fmul double %y, %y
  %y3 = fmul double %y2, %y
  %r = fadd double %a, %y3
  call void @free(ptr %cell)
  ret double %r
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
