; What rustc's autodiff bridge leaves in a module: sources and placeholders both carry
; `enzyme_marker`, placeholders are noinline, and each placeholder body is a call to a
; `__enzyme_*<name>` entry point whose activities are metadata strings. Slices are (ptr, len).

; f(x) = x^2
define internal double @square(double %x) #0 {
  %y = fmul double %x, %x
  ret double %y
}

; f(a) = sum a[i]^2 over a slice
define internal double @sumsq(ptr %a, i64 %n) #0 {
entry:
  %empty = icmp eq i64 %n, 0
  br i1 %empty, label %done, label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi double [ 0.0, %entry ], [ %acc.next, %loop ]
  %p = getelementptr inbounds double, ptr %a, i64 %i
  %v = load double, ptr %p
  %sq = fmul double %v, %v
  %acc.next = fadd double %acc, %sq
  %i.next = add i64 %i, 1
  %more = icmp ult i64 %i.next, %n
  br i1 %more, label %loop, label %done
done:
  %r = phi double [ 0.0, %entry ], [ %acc.next, %loop ]
  ret double %r
}

; f(x, y) = x^2 y
define internal double @x2y(double %x, double %y) #0 {
  %xx = fmul double %x, %x
  %r = fmul double %xx, %y
  ret double %r
}

; *out = 3 x^2
define internal void @store_sq(ptr %out, double %x) #0 {
  %xx = fmul double %x, %x
  %r = fmul double %xx, 3.0
  store double %r, ptr %out
  ret void
}

; #[autodiff_reverse(dsquare, Active, Active)]: (primal, seed * f'(x))
define { double, double } @dsquare(double %x, double %seed) #1 {
  %r = call { double, double } (...) @__enzyme_autodiff_dsquare(ptr @square, metadata !"enzyme_primal_return", metadata !"enzyme_out", double %x, double %seed)
  ret { double, double } %r
}

; #[autodiff_reverse(dsumsq, Duplicated, Const)] on a slice: gradient added into da
define void @dsumsq(ptr %a, i64 %n, ptr %da, i64 %dn) #1 {
  call void (...) @__enzyme_autodiff_dsumsq(ptr @sumsq, metadata !"enzyme_dup", ptr %a, ptr %da, metadata !"enzyme_const", i64 %n)
  ret void
}

; #[autodiff_forward(dx2y, Dual, Dual, DualOnly)] with width 2: two tangents
define { double, double } @dx2y(double %x, double %dx0, double %dx1, double %y, double %dy0, double %dy1) #1 {
  %r = call { double, double } (...) @__enzyme_fwddiff_dx2y(ptr @x2y, metadata !"enzyme_width", i64 2, metadata !"enzyme_dup", double %x, double %dx0, double %dx1, metadata !"enzyme_dup", double %y, double %dy0, double %dy1)
  ret { double, double } %r
}

; Dual slice with width 2: one shadow slice per lane, the length passed once, constant
define { double, double } @dsumsq_w2(ptr %a, i64 %n, ptr %da0, i64 %dn0, ptr %da1, i64 %dn1) #1 {
  %r = call { double, double } (...) @__enzyme_fwddiff_dsumsq_w2(ptr @sumsq, metadata !"enzyme_width", i64 2, metadata !"enzyme_dup", ptr %a, ptr %da0, ptr %da1, metadata !"enzyme_const", i64 %n)
  ret { double, double } %r
}

; Dualv slice with width 2: both tangents in one buffer, 8 * n bytes apart
define { double, double } @dsumsq_v(ptr %a, i64 %n, ptr %da, i64 %dn) #1 {
  %stride = mul i64 8, %n
  %r = call { double, double } (...) @__enzyme_fwddiff_dsumsq_v(ptr @sumsq, metadata !"enzyme_width", i64 2, metadata !"enzyme_dupv", i64 %stride, ptr %a, ptr %da, metadata !"enzyme_const", i64 %n)
  ret { double, double } %r
}

; DuplicatedOnly: the value stored to *out is not needed, only d/dx through dout
define double @dstore_sq(ptr %out, ptr %dout, double %x) #1 {
  %r = call double (...) @__enzyme_autodiff_dstore_sq(ptr @store_sq, metadata !"enzyme_dupnoneed", ptr %out, ptr %dout, metadata !"enzyme_out", double %x)
  ret double %r
}

declare { double, double } @__enzyme_autodiff_dsquare(...) #2
declare void @__enzyme_autodiff_dsumsq(...) #2
declare { double, double } @__enzyme_fwddiff_dx2y(...) #2
declare { double, double } @__enzyme_fwddiff_dsumsq_w2(...) #2
declare { double, double } @__enzyme_fwddiff_dsumsq_v(...) #2
declare double @__enzyme_autodiff_dstore_sq(...) #2

attributes #0 = { "enzyme_marker" }
attributes #1 = { noinline "enzyme_marker" }
attributes #2 = { noinline }
