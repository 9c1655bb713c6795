; Seed 001 without no-postopt: after AD the module is re-optimized, the alwaysinline placeholders
; disappear into their callers, and a derivative called in a loop is inlined there too (the
; source below is big enough that the inliner's cost model alone would keep the derivative an
; out-of-line call, since each derivative has two callers). The numbers must not change: the
; output is linked with a C driver that compares with the analytic derivatives.
; RUN: %synthase-opt -S -O2 %s -o %t2.ll
; RUN: %FileCheck %s < %t2.ll
; RUN: %clang -O2 -w -I%inputs %t2.ll %S/Inputs/hot_loop_driver.c -o %t2 -lm && %t2
; RUN: %synthase-opt -S -O3 %s -o %t3.ll
; RUN: %FileCheck %s < %t3.ll
; RUN: %clang -O2 -w -I%inputs %t3.ll %S/Inputs/hot_loop_driver.c -o %t3 -lm && %t3
; -O0 still inlines the placeholders (the always-inliner runs at every level).
; RUN: %synthase-opt -S -O0 %s -o %t0.ll
; RUN: %FileCheck %s --check-prefix=O0 < %t0.ll
; RUN: %clang -O0 -w -I%inputs %t0.ll %S/Inputs/hot_loop_driver.c -o %t0 -lm && %t0
; The same through the plugin in opt.
; RUN: %opt -S -passes='synthase<O2>' %s -o %tp.ll
; RUN: %FileCheck %s < %tp.ll
; RUN: %clang -O2 -w -I%inputs %tp.ll %S/Inputs/hot_loop_driver.c -o %tp -lm && %tp

; CHECK-NOT: declare {{.*}}@__enzyme_
; O0-NOT: declare {{.*}}@__enzyme_

; f(x, a) = sum_{k<8} sin(a x + k) exp(-k x / 8) + x^3
define internal double @f(double %x, double %a) #0 {
entry:
  br label %loop
loop:
  %k = phi i32 [ 0, %entry ], [ %k1, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s1, %loop ]
  %kf = sitofp i32 %k to double
  %ax = fmul double %a, %x
  %arg = fadd double %ax, %kf
  %sn = call double @sin(double %arg)
  %kx = fmul double %kf, %x
  %e0 = fmul double %kx, -1.250000e-01
  %ex = call double @exp(double %e0)
  %t = fmul double %sn, %ex
  %s1 = fadd double %s, %t
  %k1 = add i32 %k, 1
  %more = icmp slt i32 %k1, 8
  br i1 %more, label %loop, label %done
done:
  %xx = fmul double %x, %x
  %xxx = fmul double %xx, %x
  %r = fadd double %s1, %xxx
  ret double %r
}

; #[autodiff_reverse(df, Active, Const, ActiveOnly)]
define double @df(double %x, double %a) #1 {
  %r = call double (...) @__enzyme_autodiff_df(ptr @f, metadata !"enzyme_out", double %x, metadata !"enzyme_const", double %a)
  ret double %r
}

; #[autodiff_reverse(dfp, Active, Const, Active)]: (primal, seed * df/dx)
define { double, double } @dfp(double %x, double %a, double %seed) #1 {
  %r = call { double, double } (...) @__enzyme_autodiff_dfp(ptr @f, metadata !"enzyme_primal_return", metadata !"enzyme_out", double %x, metadata !"enzyme_const", double %a, double %seed)
  ret { double, double } %r
}

; #[autodiff_forward(tf, Dual, Const, DualOnly)]
define double @tf(double %x, double %dx, double %a) #1 {
  %r = call double (...) @__enzyme_fwddiff_tf(ptr @f, metadata !"enzyme_dupnoneed", double %x, double %dx, metadata !"enzyme_const", double %a)
  ret double %r
}

; Callers: the sum of the derivative over xs[0..n), each placeholder from two loops.
; CHECK-LABEL: define double @sum_df(
; CHECK-NOT: call {{.*}}@df(
; CHECK-NOT: call {{.*}}@{{(augmented|reverse|fwddiffe)_}}
; CHECK: ret double
; O0-LABEL: define double @sum_df(
; O0-NOT: call {{.*}}@df(
; O0: ret double
define double @sum_df(ptr %xs, i64 %n, double %a) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %acc = phi double [ 0.0, %entry ], [ %acc1, %loop ]
  %p = getelementptr inbounds double, ptr %xs, i64 %i
  %x = load double, ptr %p
  %g = call double @df(double %x, double %a)
  %acc1 = fadd double %acc, %g
  %i1 = add i64 %i, 1
  %c = icmp ult i64 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  ret double %acc1
}

; CHECK-LABEL: define double @sum_df_twice(
; CHECK-NOT: call {{.*}}@df(
; CHECK-NOT: call {{.*}}@{{(augmented|reverse|fwddiffe)_}}
; CHECK: ret double
; O0-LABEL: define double @sum_df_twice(
; O0-NOT: call {{.*}}@df(
; O0: ret double
define double @sum_df_twice(ptr %xs, i64 %n, double %a) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %acc = phi double [ 0.0, %entry ], [ %acc1, %loop ]
  %p = getelementptr inbounds double, ptr %xs, i64 %i
  %x = load double, ptr %p
  %g = call double @df(double %x, double %a)
  %g2 = fmul double %g, 2.0
  %acc1 = fadd double %acc, %g2
  %i1 = add i64 %i, 1
  %c = icmp ult i64 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  ret double %acc1
}

; sum of primal + seed * f'(x), seed = 0.5
; CHECK-LABEL: define double @sum_dfp(
; CHECK-NOT: call {{.*}}@dfp(
; CHECK-NOT: call {{.*}}@{{(augmented|reverse|fwddiffe)_}}
; CHECK: ret double
; O0-LABEL: define double @sum_dfp(
; O0-NOT: call {{.*}}@dfp(
; O0: ret double
define double @sum_dfp(ptr %xs, i64 %n, double %a) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %acc = phi double [ 0.0, %entry ], [ %acc1, %loop ]
  %p = getelementptr inbounds double, ptr %xs, i64 %i
  %x = load double, ptr %p
  %pr = call { double, double } @dfp(double %x, double %a, double 0.5)
  %v = extractvalue { double, double } %pr, 0
  %d = extractvalue { double, double } %pr, 1
  %vd = fadd double %v, %d
  %acc1 = fadd double %acc, %vd
  %i1 = add i64 %i, 1
  %c = icmp ult i64 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  ret double %acc1
}

; CHECK-LABEL: define double @sum_tf(
; CHECK-NOT: call {{.*}}@tf(
; CHECK-NOT: call {{.*}}@{{(augmented|reverse|fwddiffe)_}}
; CHECK: ret double
; O0-LABEL: define double @sum_tf(
; O0-NOT: call {{.*}}@tf(
; O0: ret double
define double @sum_tf(ptr %xs, i64 %n, double %a) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %acc = phi double [ 0.0, %entry ], [ %acc1, %loop ]
  %p = getelementptr inbounds double, ptr %xs, i64 %i
  %x = load double, ptr %p
  %g = call double @tf(double %x, double 1.0, double %a)
  %acc1 = fadd double %acc, %g
  %i1 = add i64 %i, 1
  %c = icmp ult i64 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  ret double %acc1
}

; CHECK-LABEL: define double @sum_tf_twice(
; CHECK-NOT: call {{.*}}@tf(
; CHECK-NOT: call {{.*}}@{{(augmented|reverse|fwddiffe)_}}
; CHECK: ret double
define double @sum_tf_twice(ptr %xs, i64 %n, double %a) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %acc = phi double [ 0.0, %entry ], [ %acc1, %loop ]
  %p = getelementptr inbounds double, ptr %xs, i64 %i
  %x = load double, ptr %p
  %g = call double @tf(double %x, double 2.0, double %a)
  %acc1 = fadd double %acc, %g
  %i1 = add i64 %i, 1
  %c = icmp ult i64 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  ret double %acc1
}

declare double @sin(double)
declare double @exp(double)
declare double @__enzyme_autodiff_df(...) #2
declare { double, double } @__enzyme_autodiff_dfp(...) #2
declare double @__enzyme_fwddiff_tf(...) #2

attributes #0 = { noinline "enzyme_marker" }
attributes #1 = { noinline "enzyme_marker" }
attributes #2 = { noinline }
