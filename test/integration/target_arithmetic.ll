; Target-specific spellings of plain arithmetic that Eigen reaches under -march=native: the
; inline-asm FMA of its AVX pmadd (clang pins `vfmadd231pd` with asm) and the SSE3/AVX horizontal
; adds and subtractions of its reductions. The clone gets llvm.fma and shuffles + fadd/fsub, so
; both modes differentiate them; before, the asm was refused as an indirect call and hadd had no
; rule. The driver checks analytic values; f itself (which needs AVX) is never run.
;   r = a*b + a*a (fma asm), h = hadd(r, b), t = hsub(r[0:2], b[2:4])
;   f = h0 + 2 h1 + 3 h2 + 4 h3 + 5 t0 + 6 t1
; RUN: %synthase-opt %s -o %t.ll
; RUN: %clang -O1 %t.ll %S/Inputs/target_arithmetic_driver.c -o %t -lm && %t
; RUN: %synthase-opt -no-postopt %s -S -o - | FileCheck %s
; CHECK-LABEL: define internal double @augmented_f(
; CHECK-NOT: asm
; CHECK-NOT: @llvm.x86.
; CHECK: ret double
; REQUIRES: x86_64
target triple = "x86_64-pc-linux-gnu"

declare double @__enzyme_autodiff(ptr, ...)
declare double @__enzyme_fwddiff(ptr, ...)
declare <4 x double> @llvm.x86.avx.hadd.pd.256(<4 x double>, <4 x double>)
declare <2 x double> @llvm.x86.sse3.hsub.pd(<2 x double>, <2 x double>)
@enzyme_dup = external global i32

define internal double @f(ptr %x) #0 {
entry:
  %a = load <4 x double>, ptr %x, align 8
  %pb = getelementptr double, ptr %x, i64 4
  %b = load <4 x double>, ptr %pb, align 8
  %c = fmul <4 x double> %a, %a
  %r = call <4 x double> asm "vfmadd231pd $1, $2, $0", "=x,x,x,0,~{dirflag},~{fpsr},~{flags}"(<4 x double> %a, <4 x double> %b, <4 x double> %c)
  %h = call <4 x double> @llvm.x86.avx.hadd.pd.256(<4 x double> %r, <4 x double> %b)
  %rlo = shufflevector <4 x double> %r, <4 x double> poison, <2 x i32> <i32 0, i32 1>
  %bhi = shufflevector <4 x double> %b, <4 x double> poison, <2 x i32> <i32 2, i32 3>
  %t = call <2 x double> @llvm.x86.sse3.hsub.pd(<2 x double> %rlo, <2 x double> %bhi)
  %hw = fmul <4 x double> %h, <double 1.0, double 2.0, double 3.0, double 4.0>
  %tw = fmul <2 x double> %t, <double 5.0, double 6.0>
  %h0 = extractelement <4 x double> %hw, i32 0
  %h1 = extractelement <4 x double> %hw, i32 1
  %h2 = extractelement <4 x double> %hw, i32 2
  %h3 = extractelement <4 x double> %hw, i32 3
  %t0 = extractelement <2 x double> %tw, i32 0
  %t1 = extractelement <2 x double> %tw, i32 1
  %s0 = fadd double %h0, %h1
  %s1 = fadd double %s0, %h2
  %s2 = fadd double %s1, %h3
  %s3 = fadd double %s2, %t0
  %s4 = fadd double %s3, %t1
  ret double %s4
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

attributes #0 = { "target-features"="+avx,+fma,+sse3" }
