; Seed 001: after AD, every placeholder carrying `enzyme_marker` has lost `noinline` and gained
; `alwaysinline` (never both), the derivatives it calls have no `noinline`, and no `__enzyme_*`
; declaration is left. IR as rustc's autodiff emits it: placeholder noinline + enzyme_marker, its
; body a call of `__enzyme_autodiff_<name>` / `__enzyme_fwddiff_<name>` with metadata markers.
; RUN: %synthase-opt -S -no-postopt %s 2>&1 | %FileCheck %s
; RUN: %opt -S -passes='synthase<no-postopt>' %s 2>&1 | %FileCheck %s

; CHECK-NOT: warning:
; CHECK-NOT: declare {{.*}}@__enzyme_

; f(x, a) = a * x^3. rustc marks the source too and keeps it noinline until AD; it is not a
; placeholder, so it is left as it is (its derivatives must not inherit its noinline).
; CHECK-LABEL: define internal double @cube(
; CHECK-SAME: #[[SRC:[0-9]+]]
define internal double @cube(double %x, double %a) #0 {
  %xx = fmul double %x, %x
  %xxx = fmul double %xx, %x
  %r = fmul double %xxx, %a
  ret double %r
}

; #[autodiff_reverse(dcube, Active, Const, Active)]: (primal, seed * f'(x))
; CHECK-LABEL: define { double, double } @dcube(
; CHECK-SAME: #[[PH:[0-9]+]]
; CHECK-NOT: __enzyme
; CHECK: call {{.*}}@[[AUG:augmented_cube[.0-9]*]](
; CHECK: call {{.*}}@[[REV:reverse_cube[.0-9]*]](
define { double, double } @dcube(double %x, double %a, double %seed) #1 {
  %r = call { double, double } (...) @__enzyme_autodiff_dcube(ptr @cube, metadata !"enzyme_primal_return", metadata !"enzyme_out", double %x, metadata !"enzyme_const", double %a, double %seed)
  ret { double, double } %r
}

; #[autodiff_forward(tcube, Dual, Const, DualOnly)]: only the tangent
; CHECK-LABEL: define double @tcube(
; CHECK-SAME: #[[PH]]
; CHECK-NOT: __enzyme
; CHECK: call {{.*}}@[[FWD:fwddiffe_cube[.0-9]*]](
define double @tcube(double %x, double %dx, double %a) #1 {
  %r = call double (...) @__enzyme_fwddiff_tcube(ptr @cube, metadata !"enzyme_dupnoneed", double %x, double %dx, metadata !"enzyme_const", double %a)
  ret double %r
}

; A placeholder that is also optnone (what rustc emits at -C opt-level=0): optnone requires
; noinline, so it goes too.
; CHECK-LABEL: define double @dcube_optnone(
; CHECK-SAME: #[[PH]]
define double @dcube_optnone(double %x, double %a) #2 {
  %r = call double (...) @__enzyme_autodiff_dcube_optnone(ptr @cube, metadata !"enzyme_out", double %x, metadata !"enzyme_const", double %a)
  ret double %r
}

; The generated derivatives follow the placeholders: none of them is noinline (or optnone).
; CHECK-NOT: Function Attrs: {{.*}}noinline
; CHECK-NOT: Function Attrs: {{.*}}optnone
; CHECK: define internal {{.*}}@[[AUG]](
; CHECK-NOT: Function Attrs: {{.*}}noinline
; CHECK-NOT: Function Attrs: {{.*}}optnone

declare { double, double } @__enzyme_autodiff_dcube(...) #3
declare double @__enzyme_fwddiff_tcube(...) #3
declare double @__enzyme_autodiff_dcube_optnone(...) #3

attributes #0 = { noinline "enzyme_marker" }
attributes #1 = { noinline "enzyme_marker" }
attributes #2 = { noinline optnone "enzyme_marker" }
attributes #3 = { noinline }

; CHECK-NOT: declare {{.*}}@__enzyme_
; CHECK-DAG: attributes #[[SRC]] = { noinline "enzyme_marker" }
; CHECK-DAG: attributes #[[PH]] = { alwaysinline "enzyme_marker" }
