; Generated and marked functions are found by attribute and by the engine's own record, never by
; name: user functions that merely look like Enzyme's (`__enzyme_x_helper`, `diffe_y`,
; `fwddiffe_z`, `reverse_w`, `augmented_v`) keep their noinline and stay calls, with and without
; the post-AD optimization, even when a placeholder calls one of them.
; RUN: %synthase-opt -S -no-postopt %s | %FileCheck %s --check-prefixes=CHECK,NOPOST
; RUN: %opt -S -passes='synthase<no-postopt>' %s | %FileCheck %s --check-prefixes=CHECK,NOPOST
; RUN: %synthase-opt -S -O2 %s | %FileCheck %s --check-prefixes=CHECK,POST
; RUN: %synthase-opt -S -O3 %s | %FileCheck %s --check-prefixes=CHECK,POST

; CHECK: ; Function Attrs: {{.*}}noinline
; CHECK-NEXT: define double @__enzyme_x_helper(double %x)
define double @__enzyme_x_helper(double %x) #0 {
  %y = fadd double %x, 1.0
  ret double %y
}
; CHECK: ; Function Attrs: {{.*}}noinline
; CHECK-NEXT: define double @diffe_y(double %x)
define double @diffe_y(double %x) #0 {
  %y = fmul double %x, 2.0
  ret double %y
}
; CHECK: ; Function Attrs: {{.*}}noinline
; CHECK-NEXT: define double @fwddiffe_z(double %x)
define double @fwddiffe_z(double %x) #0 {
  %y = fmul double %x, 3.0
  ret double %y
}
; CHECK: ; Function Attrs: {{.*}}noinline
; CHECK-NEXT: define double @reverse_w(double %x)
define double @reverse_w(double %x) #0 {
  %y = fmul double %x, 4.0
  ret double %y
}
; CHECK: ; Function Attrs: {{.*}}noinline
; CHECK-NEXT: define double @augmented_v(double %x)
define double @augmented_v(double %x) #0 {
  %y = fmul double %x, 5.0
  ret double %y
}

define internal double @sq(double %x) #1 {
  %y = fmul double %x, %x
  ret double %y
}

; The placeholder calls the derivative and, after it, a user function named like one: the
; derivative is followed (and inlined after post-opt), the look-alike is not.
; CHECK: ; Function Attrs: alwaysinline
; CHECK-NOT: noinline
; CHECK-NEXT: define double @dsq(
; NOPOST: call {{.*}}@reverse_sq
; POST-NOT: @reverse_sq
; CHECK: call double @diffe_y(
; CHECK: ret double
define double @dsq(double %x) #2 {
  %r = call double (...) @__enzyme_autodiff_dsq(ptr @sq, metadata !"enzyme_out", double %x)
  %s = call double @diffe_y(double %r)
  ret double %s
}

; CHECK-LABEL: define double @user(
; CHECK: call double @__enzyme_x_helper(
; CHECK: call double @fwddiffe_z(
; CHECK: call double @reverse_w(
; CHECK: call double @augmented_v(
; CHECK: call double @diffe_y(
; NOPOST: call double @dsq(
; POST-NOT: call double @dsq(
; POST: call double @diffe_y(
; CHECK: ret double
define double @user(double %x) {
  %a = call double @__enzyme_x_helper(double %x)
  %b = call double @fwddiffe_z(double %a)
  %c = call double @reverse_w(double %b)
  %d = call double @augmented_v(double %c)
  %e = call double @diffe_y(double %d)
  %f = call double @dsq(double %e)
  ret double %f
}

declare double @__enzyme_autodiff_dsq(...) #3

attributes #0 = { noinline }
attributes #1 = { "enzyme_marker" }
attributes #2 = { noinline "enzyme_marker" }
attributes #3 = { noinline }
