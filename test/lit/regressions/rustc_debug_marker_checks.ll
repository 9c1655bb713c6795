; Rust programs that call the C entry points directly, with the markers as extern statics
; (`extern "C" { static enzyme_dup: i32; }` then `__enzyme_autodiff(f, enzyme_dup, ...)`), failed
; to link at opt-level 0: rustc's debug build checks the address of every extern static it reads
; (`icmp eq i64 ptrtoint (ptr @enzyme_dup to i64), 0`, branching to a panic), the check outlived
; the marker's load, and `enzyme_dup` stayed an undefined symbol. This IR has rustc's shape: null
; checks before each marker load, plus an alignment check (`ptrtoint & 3`) that no fold removes.
; After AD no reference to an undefined marker may remain; the program links and checks
; d/dx (x^3 + sum v_i^2 x) at x = 0.5, v = (1, 2): reverse (enzyme_out x, enzyme_dup v) and
; forward (enzyme_dup x with tangent 1, v constant) against the analytic 3x^2 + |v|^2 = 5.75,
; and dv = 2 v x = (1, 2).
; RUN: %opt -passes='synthase<no-postopt>' -S %s -o %t.ll
; RUN: %FileCheck %s < %t.ll
; RUN: %FileCheck %s --check-prefix=GONE < %t.ll
; RUN: %clang -O0 %t.ll -o %t0 && %t0
; RUN: %synthase-opt %s -o %t.bc && %clang %t.bc -o %t2 && %t2
; CHECK: @enzyme_const = internal global i32 0
; GONE-NOT: external global
; GONE-NOT: @enzyme_out
; GONE-NOT: @enzyme_dup
; GONE-NOT: icmp eq i64 ptrtoint (ptr @enzyme_
; GONE-NOT: __enzyme_autodiff(
; GONE-NOT: __enzyme_fwddiff(

@enzyme_out = external global i32
@enzyme_dup = external global i32
@enzyme_const = external global i32

define internal double @f(double %x, ptr %v, i32 %n) {
entry:
  %x2 = fmul double %x, %x
  %x3 = fmul double %x2, %x
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi double [ %x3, %entry ], [ %s.next, %loop ]
  %p = getelementptr inbounds double, ptr %v, i32 %i
  %vi = load double, ptr %p
  %sq = fmul double %vi, %vi
  %t = fmul double %sq, %x
  %s.next = fadd double %s, %t
  %i.next = add i32 %i, 1
  %c = icmp slt i32 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret double %s.next
}

declare double @__enzyme_autodiff(ptr, ...)
declare double @__enzyme_fwddiff(ptr, ...)
declare void @abort()

define i32 @main() {
start:
  %v = alloca [2 x double], align 8
  %dv = alloca [2 x double], align 8
  %zero = alloca [2 x double], align 8
  store double 1.0, ptr %v
  %v1 = getelementptr inbounds double, ptr %v, i64 1
  store double 2.0, ptr %v1
  call void @llvm.memset.p0.i64(ptr %dv, i8 0, i64 16, i1 false)
  call void @llvm.memset.p0.i64(ptr %zero, i8 0, i64 16, i1 false)
  %_1 = icmp eq i64 ptrtoint (ptr @enzyme_out to i64), 0
  %_2 = and i1 %_1, true
  %_3 = xor i1 %_2, true
  br i1 %_3, label %bb1, label %panic
bb1:
  %m.out = load i32, ptr @enzyme_out, align 4
  %_4 = icmp eq i64 ptrtoint (ptr @enzyme_dup to i64), 0
  %_5 = xor i1 %_4, true
  br i1 %_5, label %bb2, label %panic
bb2:
  %m.dup = load i32, ptr @enzyme_dup, align 4
  %_6 = icmp eq i64 ptrtoint (ptr @enzyme_const to i64), 0
  %_7 = xor i1 %_6, true
  br i1 %_7, label %bb3, label %panic
bb3:
  %a = ptrtoint ptr @enzyme_const to i64
  %mis = and i64 %a, 3
  %aligned = icmp eq i64 %mis, 0
  br i1 %aligned, label %bb4, label %panic
bb4:
  %m.const = load i32, ptr @enzyme_const, align 4
  %dx = call double (ptr, ...) @__enzyme_autodiff(ptr @f, i32 %m.out, double 5.000000e-01, i32 %m.dup, ptr %v, ptr %dv, i32 %m.const, i32 2)
  %tx = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %m.dup, double 5.000000e-01, double 1.0, i32 %m.const, ptr %v, i32 %m.const, i32 2)
  %e1 = fsub double %dx, 5.75
  %e2 = fsub double %tx, 5.75
  %dv0 = load double, ptr %dv
  %dv1p = getelementptr inbounds double, ptr %dv, i64 1
  %dv1 = load double, ptr %dv1p
  %e3 = fsub double %dv0, 1.0
  %e4 = fsub double %dv1, 2.0
  %a1 = call double @llvm.fabs.f64(double %e1)
  %a2 = call double @llvm.fabs.f64(double %e2)
  %a3 = call double @llvm.fabs.f64(double %e3)
  %a4 = call double @llvm.fabs.f64(double %e4)
  %s1 = fadd double %a1, %a2
  %s2 = fadd double %a3, %a4
  %s = fadd double %s1, %s2
  %ok = fcmp olt double %s, 1.0e-12
  br i1 %ok, label %done, label %panic
done:
  ret i32 0
panic:
  call void @abort()
  unreachable
}

declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
declare double @llvm.fabs.f64(double)
