; Floats that optimized Rust moves as i64, in two shapes the standard library produces.
; @merge: sort_unstable's merge of two sorted halves into a stack scratch buffer, each element
;   moved as i64 through a pointer selected by a comparison, the buffer copied back with a
;   run-time length (before: the scratch looked like integers and the copy back zeroed the
;   adjoints, so the whole gradient was 0).
; @shapes: a Vec of `enum { Disc(f64), Rect(f64, f64) }` built in two 8-byte slots, the payload
;   stored as f64 through a phi of the slots and read out as i64 into an element typed
;   { i64, [2 x i64] } (before: the integer type won and the payload's adjoint was lost).
; The driver checks both modes against analytic derivatives.
; RUN: %synthase-opt %s -o %t.ll
; RUN: %clang -O1 %t.ll %S/Inputs/integer_moved_floats_driver.c -o %t -lm && %t
; RUN: %synthase-opt -no-postopt %s -S -o - | FileCheck %s
; CHECK-LABEL: define internal void @reverse_merge(
; CHECK-NOT: call void @llvm.memset
; CHECK: ret void
target triple = "x86_64-pc-linux-gnu"

declare double @__enzyme_autodiff(ptr, ...)
declare double @__enzyme_fwddiff(ptr, ...)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
declare ptr @malloc(i64)
declare void @free(ptr)
@enzyme_dup = external global i32

; v[0..h) and v[h..n) are sorted (n = 2h); merged front to back into scratch, copied back;
; returns sum_i (i + 1) v[i]^2.
define internal double @merge(ptr %v, i64 %h) {
entry:
  %scratch = alloca [256 x i8], align 8
  %n = shl i64 %h, 1
  %right0 = getelementptr inbounds double, ptr %v, i64 %h
  %lend = getelementptr inbounds double, ptr %v, i64 %h
  %rend = getelementptr inbounds double, ptr %v, i64 %n
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %next ]
  %l = phi ptr [ %v, %entry ], [ %l1, %next ]
  %r = phi ptr [ %right0, %entry ], [ %r1, %next ]
  %lok = icmp ult ptr %l, %lend
  %rok = icmp ult ptr %r, %rend
  br i1 %rok, label %cmp, label %takel
cmp:
  br i1 %lok, label %both, label %taker
both:
  %lv = load double, ptr %l, align 8
  %rv = load double, ptr %r, align 8
  %rless = fcmp olt double %rv, %lv
  br label %pick
takel:
  br label %pick
taker:
  br label %pick
pick:
  %fromr = phi i1 [ %rless, %both ], [ false, %takel ], [ true, %taker ]
  %src = select i1 %fromr, ptr %r, ptr %l
  %bits = load i64, ptr %src, align 8
  %dst = getelementptr inbounds double, ptr %scratch, i64 %i
  store i64 %bits, ptr %dst, align 8
  %adv = zext i1 %fromr to i64
  %nadv = xor i64 %adv, 1
  %r1 = getelementptr inbounds double, ptr %r, i64 %adv
  %l1 = getelementptr inbounds double, ptr %l, i64 %nadv
  br label %next
next:
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
  %end = icmp eq i64 %k1, %n
  br i1 %end, label %out, label %sum
out:
  ret double %acc1
}

; x holds m pairs; pair i is Disc(x[2i]) when i is even, else Rect(x[2i], x[2i+1]);
; returns sum of 3 r^2 over discs and w h over rectangles.
define internal double @shapes(ptr %x, i64 %m) {
entry:
  %s0 = alloca i64, align 8
  %s1 = alloca i64, align 8
  %bytes = mul i64 %m, 24
  %vec = call ptr @malloc(i64 %bytes)
  br label %build
build:
  %i = phi i64 [ 0, %entry ], [ %i1, %put ]
  %pair = getelementptr inbounds [2 x double], ptr %x, i64 %i
  %odd = and i64 %i, 1
  %isdisc = icmp eq i64 %odd, 0
  br i1 %isdisc, label %disc, label %rect
disc:
  %r = load double, ptr %pair, align 8
  br label %put
rect:
  %wbits = load i64, ptr %pair, align 8
  %ph = getelementptr inbounds i8, ptr %pair, i64 8
  %hh = load double, ptr %ph, align 8
  store i64 %wbits, ptr %s0, align 8
  br label %put
put:
  %slot = phi ptr [ %s0, %disc ], [ %s1, %rect ]
  %val = phi double [ %r, %disc ], [ %hh, %rect ]
  %tag = phi i64 [ 0, %disc ], [ 1, %rect ]
  store double %val, ptr %slot, align 8
  %a = load i64, ptr %s0, align 8
  %b = load i64, ptr %s1, align 8
  %el = getelementptr inbounds { i64, [2 x i64] }, ptr %vec, i64 %i
  store i64 %tag, ptr %el, align 8
  %ea = getelementptr inbounds i8, ptr %el, i64 8
  store i64 %a, ptr %ea, align 8
  %eb = getelementptr inbounds i8, ptr %el, i64 16
  store i64 %b, ptr %eb, align 8
  %i1 = add i64 %i, 1
  %built = icmp eq i64 %i1, %m
  br i1 %built, label %sum, label %build
sum:
  %j = phi i64 [ 0, %put ], [ %j1, %add ]
  %acc = phi double [ 0.0, %put ], [ %acc1, %add ]
  %e = getelementptr inbounds i8, ptr %vec, i64 0
  %off = mul i64 %j, 24
  %ej = getelementptr inbounds i8, ptr %vec, i64 %off
  %tg = load i64, ptr %ej, align 8
  %p0 = getelementptr inbounds i8, ptr %ej, i64 8
  %v0 = load double, ptr %p0, align 8
  %isr = icmp eq i64 %tg, 1
  br i1 %isr, label %area_rect, label %area_disc
area_rect:
  %p1 = getelementptr inbounds i8, ptr %ej, i64 16
  %v1 = load double, ptr %p1, align 8
  %ar = fmul double %v0, %v1
  br label %add
area_disc:
  %sq = fmul double %v0, %v0
  %ad = fmul double %sq, 3.0
  br label %add
add:
  %area = phi double [ %ar, %area_rect ], [ %ad, %area_disc ]
  %acc1 = fadd double %acc, %area
  %j1 = add i64 %j, 1
  %fin = icmp eq i64 %j1, %m
  br i1 %fin, label %out, label %sum
out:
  call void @free(ptr %vec)
  ret double %acc1
}

define double @grad_merge(ptr %v, ptr %dv, i64 %h) {
  %d = load i32, ptr @enzyme_dup
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @merge, i32 %d, ptr %v, ptr %dv, i64 %h)
  ret double %r
}

define double @tangent_merge(ptr %v, ptr %dv, i64 %h) {
  %d = load i32, ptr @enzyme_dup
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @merge, i32 %d, ptr %v, ptr %dv, i64 %h)
  ret double %r
}

define double @grad_shapes(ptr %x, ptr %dx, i64 %m) {
  %d = load i32, ptr @enzyme_dup
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @shapes, i32 %d, ptr %x, ptr %dx, i64 %m)
  ret double %r
}

define double @tangent_shapes(ptr %x, ptr %dx, i64 %m) {
  %d = load i32, ptr @enzyme_dup
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @shapes, i32 %d, ptr %x, ptr %dx, i64 %m)
  ret double %r
}
