; A stack scratch buffer filled with float bits moved as i64 through a long chain of selects
; (longer than the layout analysis follows) and copied back with a run-time length: the bytes
; must count as data, so the copy back moves the adjoints (before: a chain longer than 32 values
; was taken for integers and the gradient was silently 0). The selects never pick the integers
; at run time; the driver checks both modes against 2 (k + 1) v_k.
; RUN: %synthase-opt %s -o %t.ll
; RUN: %clang -O1 %t.ll %S/Inputs/deep_integer_moves_driver.c -o %t -lm && %t
target triple = "x86_64-pc-linux-gnu"

declare double @__enzyme_autodiff(ptr, ...)
declare double @__enzyme_fwddiff(ptr, ...)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
@enzyme_dup = external global i32
@enzyme_const = external global i32

; Copies v[0..n) through scratch (n <= 32) and returns sum_k (k + 1) v[k]^2; flags are all
; zero, so every select keeps the float bits, never ints[k].
define internal double @deep(ptr %v, ptr %flags, ptr %ints, i64 %n) {
entry:
  %scratch = alloca [256 x i8], align 8
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %p = getelementptr inbounds double, ptr %v, i64 %i
  %s0 = load i64, ptr %p, align 8
  %fp1 = getelementptr inbounds i8, ptr %flags, i64 0
  %f1 = load i8, ptr %fp1, align 1
  %never1 = icmp ne i8 %f1, 0
  %q1 = getelementptr inbounds i64, ptr %ints, i64 0
  %c1 = load i64, ptr %q1, align 8
  %s1 = select i1 %never1, i64 %c1, i64 %s0
  %fp2 = getelementptr inbounds i8, ptr %flags, i64 1
  %f2 = load i8, ptr %fp2, align 1
  %never2 = icmp ne i8 %f2, 0
  %q2 = getelementptr inbounds i64, ptr %ints, i64 1
  %c2 = load i64, ptr %q2, align 8
  %s2 = select i1 %never2, i64 %c2, i64 %s1
  %fp3 = getelementptr inbounds i8, ptr %flags, i64 2
  %f3 = load i8, ptr %fp3, align 1
  %never3 = icmp ne i8 %f3, 0
  %q3 = getelementptr inbounds i64, ptr %ints, i64 2
  %c3 = load i64, ptr %q3, align 8
  %s3 = select i1 %never3, i64 %c3, i64 %s2
  %fp4 = getelementptr inbounds i8, ptr %flags, i64 3
  %f4 = load i8, ptr %fp4, align 1
  %never4 = icmp ne i8 %f4, 0
  %q4 = getelementptr inbounds i64, ptr %ints, i64 3
  %c4 = load i64, ptr %q4, align 8
  %s4 = select i1 %never4, i64 %c4, i64 %s3
  %fp5 = getelementptr inbounds i8, ptr %flags, i64 4
  %f5 = load i8, ptr %fp5, align 1
  %never5 = icmp ne i8 %f5, 0
  %q5 = getelementptr inbounds i64, ptr %ints, i64 4
  %c5 = load i64, ptr %q5, align 8
  %s5 = select i1 %never5, i64 %c5, i64 %s4
  %fp6 = getelementptr inbounds i8, ptr %flags, i64 5
  %f6 = load i8, ptr %fp6, align 1
  %never6 = icmp ne i8 %f6, 0
  %q6 = getelementptr inbounds i64, ptr %ints, i64 5
  %c6 = load i64, ptr %q6, align 8
  %s6 = select i1 %never6, i64 %c6, i64 %s5
  %fp7 = getelementptr inbounds i8, ptr %flags, i64 6
  %f7 = load i8, ptr %fp7, align 1
  %never7 = icmp ne i8 %f7, 0
  %q7 = getelementptr inbounds i64, ptr %ints, i64 6
  %c7 = load i64, ptr %q7, align 8
  %s7 = select i1 %never7, i64 %c7, i64 %s6
  %fp8 = getelementptr inbounds i8, ptr %flags, i64 7
  %f8 = load i8, ptr %fp8, align 1
  %never8 = icmp ne i8 %f8, 0
  %q8 = getelementptr inbounds i64, ptr %ints, i64 7
  %c8 = load i64, ptr %q8, align 8
  %s8 = select i1 %never8, i64 %c8, i64 %s7
  %fp9 = getelementptr inbounds i8, ptr %flags, i64 8
  %f9 = load i8, ptr %fp9, align 1
  %never9 = icmp ne i8 %f9, 0
  %q9 = getelementptr inbounds i64, ptr %ints, i64 8
  %c9 = load i64, ptr %q9, align 8
  %s9 = select i1 %never9, i64 %c9, i64 %s8
  %fp10 = getelementptr inbounds i8, ptr %flags, i64 9
  %f10 = load i8, ptr %fp10, align 1
  %never10 = icmp ne i8 %f10, 0
  %q10 = getelementptr inbounds i64, ptr %ints, i64 9
  %c10 = load i64, ptr %q10, align 8
  %s10 = select i1 %never10, i64 %c10, i64 %s9
  %fp11 = getelementptr inbounds i8, ptr %flags, i64 10
  %f11 = load i8, ptr %fp11, align 1
  %never11 = icmp ne i8 %f11, 0
  %q11 = getelementptr inbounds i64, ptr %ints, i64 10
  %c11 = load i64, ptr %q11, align 8
  %s11 = select i1 %never11, i64 %c11, i64 %s10
  %fp12 = getelementptr inbounds i8, ptr %flags, i64 11
  %f12 = load i8, ptr %fp12, align 1
  %never12 = icmp ne i8 %f12, 0
  %q12 = getelementptr inbounds i64, ptr %ints, i64 11
  %c12 = load i64, ptr %q12, align 8
  %s12 = select i1 %never12, i64 %c12, i64 %s11
  %fp13 = getelementptr inbounds i8, ptr %flags, i64 12
  %f13 = load i8, ptr %fp13, align 1
  %never13 = icmp ne i8 %f13, 0
  %q13 = getelementptr inbounds i64, ptr %ints, i64 12
  %c13 = load i64, ptr %q13, align 8
  %s13 = select i1 %never13, i64 %c13, i64 %s12
  %fp14 = getelementptr inbounds i8, ptr %flags, i64 13
  %f14 = load i8, ptr %fp14, align 1
  %never14 = icmp ne i8 %f14, 0
  %q14 = getelementptr inbounds i64, ptr %ints, i64 13
  %c14 = load i64, ptr %q14, align 8
  %s14 = select i1 %never14, i64 %c14, i64 %s13
  %fp15 = getelementptr inbounds i8, ptr %flags, i64 14
  %f15 = load i8, ptr %fp15, align 1
  %never15 = icmp ne i8 %f15, 0
  %q15 = getelementptr inbounds i64, ptr %ints, i64 14
  %c15 = load i64, ptr %q15, align 8
  %s15 = select i1 %never15, i64 %c15, i64 %s14
  %fp16 = getelementptr inbounds i8, ptr %flags, i64 15
  %f16 = load i8, ptr %fp16, align 1
  %never16 = icmp ne i8 %f16, 0
  %q16 = getelementptr inbounds i64, ptr %ints, i64 15
  %c16 = load i64, ptr %q16, align 8
  %s16 = select i1 %never16, i64 %c16, i64 %s15
  %fp17 = getelementptr inbounds i8, ptr %flags, i64 16
  %f17 = load i8, ptr %fp17, align 1
  %never17 = icmp ne i8 %f17, 0
  %q17 = getelementptr inbounds i64, ptr %ints, i64 16
  %c17 = load i64, ptr %q17, align 8
  %s17 = select i1 %never17, i64 %c17, i64 %s16
  %fp18 = getelementptr inbounds i8, ptr %flags, i64 17
  %f18 = load i8, ptr %fp18, align 1
  %never18 = icmp ne i8 %f18, 0
  %q18 = getelementptr inbounds i64, ptr %ints, i64 17
  %c18 = load i64, ptr %q18, align 8
  %s18 = select i1 %never18, i64 %c18, i64 %s17
  %fp19 = getelementptr inbounds i8, ptr %flags, i64 18
  %f19 = load i8, ptr %fp19, align 1
  %never19 = icmp ne i8 %f19, 0
  %q19 = getelementptr inbounds i64, ptr %ints, i64 18
  %c19 = load i64, ptr %q19, align 8
  %s19 = select i1 %never19, i64 %c19, i64 %s18
  %fp20 = getelementptr inbounds i8, ptr %flags, i64 19
  %f20 = load i8, ptr %fp20, align 1
  %never20 = icmp ne i8 %f20, 0
  %q20 = getelementptr inbounds i64, ptr %ints, i64 19
  %c20 = load i64, ptr %q20, align 8
  %s20 = select i1 %never20, i64 %c20, i64 %s19
  %fp21 = getelementptr inbounds i8, ptr %flags, i64 20
  %f21 = load i8, ptr %fp21, align 1
  %never21 = icmp ne i8 %f21, 0
  %q21 = getelementptr inbounds i64, ptr %ints, i64 20
  %c21 = load i64, ptr %q21, align 8
  %s21 = select i1 %never21, i64 %c21, i64 %s20
  %fp22 = getelementptr inbounds i8, ptr %flags, i64 21
  %f22 = load i8, ptr %fp22, align 1
  %never22 = icmp ne i8 %f22, 0
  %q22 = getelementptr inbounds i64, ptr %ints, i64 21
  %c22 = load i64, ptr %q22, align 8
  %s22 = select i1 %never22, i64 %c22, i64 %s21
  %fp23 = getelementptr inbounds i8, ptr %flags, i64 22
  %f23 = load i8, ptr %fp23, align 1
  %never23 = icmp ne i8 %f23, 0
  %q23 = getelementptr inbounds i64, ptr %ints, i64 22
  %c23 = load i64, ptr %q23, align 8
  %s23 = select i1 %never23, i64 %c23, i64 %s22
  %fp24 = getelementptr inbounds i8, ptr %flags, i64 23
  %f24 = load i8, ptr %fp24, align 1
  %never24 = icmp ne i8 %f24, 0
  %q24 = getelementptr inbounds i64, ptr %ints, i64 23
  %c24 = load i64, ptr %q24, align 8
  %s24 = select i1 %never24, i64 %c24, i64 %s23
  %fp25 = getelementptr inbounds i8, ptr %flags, i64 24
  %f25 = load i8, ptr %fp25, align 1
  %never25 = icmp ne i8 %f25, 0
  %q25 = getelementptr inbounds i64, ptr %ints, i64 24
  %c25 = load i64, ptr %q25, align 8
  %s25 = select i1 %never25, i64 %c25, i64 %s24
  %fp26 = getelementptr inbounds i8, ptr %flags, i64 25
  %f26 = load i8, ptr %fp26, align 1
  %never26 = icmp ne i8 %f26, 0
  %q26 = getelementptr inbounds i64, ptr %ints, i64 25
  %c26 = load i64, ptr %q26, align 8
  %s26 = select i1 %never26, i64 %c26, i64 %s25
  %fp27 = getelementptr inbounds i8, ptr %flags, i64 26
  %f27 = load i8, ptr %fp27, align 1
  %never27 = icmp ne i8 %f27, 0
  %q27 = getelementptr inbounds i64, ptr %ints, i64 26
  %c27 = load i64, ptr %q27, align 8
  %s27 = select i1 %never27, i64 %c27, i64 %s26
  %fp28 = getelementptr inbounds i8, ptr %flags, i64 27
  %f28 = load i8, ptr %fp28, align 1
  %never28 = icmp ne i8 %f28, 0
  %q28 = getelementptr inbounds i64, ptr %ints, i64 27
  %c28 = load i64, ptr %q28, align 8
  %s28 = select i1 %never28, i64 %c28, i64 %s27
  %fp29 = getelementptr inbounds i8, ptr %flags, i64 28
  %f29 = load i8, ptr %fp29, align 1
  %never29 = icmp ne i8 %f29, 0
  %q29 = getelementptr inbounds i64, ptr %ints, i64 28
  %c29 = load i64, ptr %q29, align 8
  %s29 = select i1 %never29, i64 %c29, i64 %s28
  %fp30 = getelementptr inbounds i8, ptr %flags, i64 29
  %f30 = load i8, ptr %fp30, align 1
  %never30 = icmp ne i8 %f30, 0
  %q30 = getelementptr inbounds i64, ptr %ints, i64 29
  %c30 = load i64, ptr %q30, align 8
  %s30 = select i1 %never30, i64 %c30, i64 %s29
  %fp31 = getelementptr inbounds i8, ptr %flags, i64 30
  %f31 = load i8, ptr %fp31, align 1
  %never31 = icmp ne i8 %f31, 0
  %q31 = getelementptr inbounds i64, ptr %ints, i64 30
  %c31 = load i64, ptr %q31, align 8
  %s31 = select i1 %never31, i64 %c31, i64 %s30
  %fp32 = getelementptr inbounds i8, ptr %flags, i64 31
  %f32 = load i8, ptr %fp32, align 1
  %never32 = icmp ne i8 %f32, 0
  %q32 = getelementptr inbounds i64, ptr %ints, i64 31
  %c32 = load i64, ptr %q32, align 8
  %s32 = select i1 %never32, i64 %c32, i64 %s31
  %fp33 = getelementptr inbounds i8, ptr %flags, i64 32
  %f33 = load i8, ptr %fp33, align 1
  %never33 = icmp ne i8 %f33, 0
  %q33 = getelementptr inbounds i64, ptr %ints, i64 32
  %c33 = load i64, ptr %q33, align 8
  %s33 = select i1 %never33, i64 %c33, i64 %s32
  %fp34 = getelementptr inbounds i8, ptr %flags, i64 33
  %f34 = load i8, ptr %fp34, align 1
  %never34 = icmp ne i8 %f34, 0
  %q34 = getelementptr inbounds i64, ptr %ints, i64 33
  %c34 = load i64, ptr %q34, align 8
  %s34 = select i1 %never34, i64 %c34, i64 %s33
  %fp35 = getelementptr inbounds i8, ptr %flags, i64 34
  %f35 = load i8, ptr %fp35, align 1
  %never35 = icmp ne i8 %f35, 0
  %q35 = getelementptr inbounds i64, ptr %ints, i64 34
  %c35 = load i64, ptr %q35, align 8
  %s35 = select i1 %never35, i64 %c35, i64 %s34
  %fp36 = getelementptr inbounds i8, ptr %flags, i64 35
  %f36 = load i8, ptr %fp36, align 1
  %never36 = icmp ne i8 %f36, 0
  %q36 = getelementptr inbounds i64, ptr %ints, i64 35
  %c36 = load i64, ptr %q36, align 8
  %s36 = select i1 %never36, i64 %c36, i64 %s35
  %fp37 = getelementptr inbounds i8, ptr %flags, i64 36
  %f37 = load i8, ptr %fp37, align 1
  %never37 = icmp ne i8 %f37, 0
  %q37 = getelementptr inbounds i64, ptr %ints, i64 36
  %c37 = load i64, ptr %q37, align 8
  %s37 = select i1 %never37, i64 %c37, i64 %s36
  %fp38 = getelementptr inbounds i8, ptr %flags, i64 37
  %f38 = load i8, ptr %fp38, align 1
  %never38 = icmp ne i8 %f38, 0
  %q38 = getelementptr inbounds i64, ptr %ints, i64 37
  %c38 = load i64, ptr %q38, align 8
  %s38 = select i1 %never38, i64 %c38, i64 %s37
  %fp39 = getelementptr inbounds i8, ptr %flags, i64 38
  %f39 = load i8, ptr %fp39, align 1
  %never39 = icmp ne i8 %f39, 0
  %q39 = getelementptr inbounds i64, ptr %ints, i64 38
  %c39 = load i64, ptr %q39, align 8
  %s39 = select i1 %never39, i64 %c39, i64 %s38
  %fp40 = getelementptr inbounds i8, ptr %flags, i64 39
  %f40 = load i8, ptr %fp40, align 1
  %never40 = icmp ne i8 %f40, 0
  %q40 = getelementptr inbounds i64, ptr %ints, i64 39
  %c40 = load i64, ptr %q40, align 8
  %s40 = select i1 %never40, i64 %c40, i64 %s39
  %dst = getelementptr inbounds double, ptr %scratch, i64 %i
  store i64 %s40, ptr %dst, align 8
  %i1 = add i64 %i, 1
  %done = icmp eq i64 %i1, %n
  br i1 %done, label %back, label %loop
back:
  %bytes = shl i64 %n, 3
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %v, ptr align 8 %scratch, i64 %bytes, i1 false)
  br label %sum
sum:
  %k = phi i64 [ 0, %back ], [ %k1, %sum ]
  %acc = phi double [ 0.0, %back ], [ %acc1, %sum ]
  %pk = getelementptr inbounds double, ptr %v, i64 %k
  %xk = load double, ptr %pk, align 8
  %k1 = add i64 %k, 1
  %w = uitofp i64 %k1 to double
  %sq = fmul double %xk, %xk
  %t = fmul double %sq, %w
  %acc1 = fadd double %acc, %t
  %sdone = icmp eq i64 %k1, %n
  br i1 %sdone, label %exit, label %sum
exit:
  ret double %acc1
}

define double @grad_deep(ptr %v, ptr %dv, ptr %flags, ptr %ints, i64 %n) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @deep, ptr @enzyme_dup, ptr %v, ptr %dv, ptr @enzyme_const, ptr %flags, ptr @enzyme_const, ptr %ints, i64 %n)
  ret double %r
}

define double @tangent_deep(ptr %v, ptr %dv, ptr %flags, ptr %ints, i64 %n) {
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @deep, ptr @enzyme_dup, ptr %v, ptr %dv, ptr @enzyme_const, ptr %flags, ptr @enzyme_const, ptr %ints, i64 %n)
  ret double %r
}
