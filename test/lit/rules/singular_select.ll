; Zero times infinity is zero (lib/Rules scalePartial): a partial that can be infinite or NaN at a
; finite point (sqrt, log, fdiv, ...) is multiplied into the incoming tangent/adjoint behind
; `incoming == 0 ? +0.0 : partial * incoming`; every other partial (sin, fmul, a division by a
; nonzero constant) stays one fmul with no compare or select. The compare and the select carry no
; fast-math flags even when the primal is `fast`, so -ffast-math cannot fold them away. Vector
; mode tests each lane's tangent; LLVM vector types compare lane-wise.
; RUN: %synthase-opt -no-postopt -S %s -o %t
; RUN: %FileCheck %s --check-prefix=FSMOOTH < %t
; RUN: %FileCheck %s --check-prefix=RSMOOTH < %t
; RUN: %FileCheck %s --check-prefix=ROOT < %t
; RUN: %FileCheck %s --check-prefix=ROOT2 < %t
; RUN: %FileCheck %s --check-prefix=QUOT < %t
; RUN: %FileCheck %s --check-prefix=VROOT < %t

declare double @__enzyme_autodiff(ptr, ...)
declare { double, double } @__enzyme_autodiff_g2(ptr, ...)
declare double @__enzyme_fwddiff(ptr, ...)
declare { double, double } @__enzyme_fwddiff_w2(ptr, ...)
declare double @llvm.sin.f64(double)
declare double @llvm.sqrt.f64(double)
declare <2 x double> @llvm.sqrt.v2f64(<2 x double>)
declare double @log(double)

define internal double @smooth(double %x, double %y) {
  %s = call double @llvm.sin.f64(double %x)
  %m = fmul double %s, %y
  %d = fdiv double %m, 4.0
  ret double %d
}
define internal double @root(double %x) {
  %r = call fast double @llvm.sqrt.f64(double %x)
  ret double %r
}
define internal double @quot(double %x, double %y) {
  %q = fdiv fast double %x, %y
  %l = call fast double @log(double %q)
  ret double %l
}
define internal double @vroot(double %x, double %y) {
  %a = insertelement <2 x double> poison, double %x, i64 0
  %b = insertelement <2 x double> %a, double %y, i64 1
  %r = call <2 x double> @llvm.sqrt.v2f64(<2 x double> %b)
  %r0 = extractelement <2 x double> %r, i64 0
  %r1 = extractelement <2 x double> %r, i64 1
  %s = fadd double %r0, %r1
  ret double %s
}

define double @fwd_smooth(double %x, double %y) {
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @smooth, double %x, double 1.0, double %y, double 0.5)
  ret double %r
}
define { double, double } @rev_smooth(double %x, double %y) {
  %r = call { double, double } (ptr, ...) @__enzyme_autodiff_g2(ptr @smooth, double %x, double %y)
  ret { double, double } %r
}
define double @fwd_root(double %x, double %dx) {
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @root, double %x, double %dx)
  ret double %r
}
define { double, double } @fwd2_root(double %x, double %d0, double %d1) {
  %w = load i32, ptr @enzyme_width
  %r = call { double, double } (ptr, ...) @__enzyme_fwddiff_w2(ptr @root, i32 %w, i64 2, double %x, double %d0, double %d1)
  ret { double, double } %r
}
define { double, double } @rev_quot(double %x, double %y) {
  %r = call { double, double } (ptr, ...) @__enzyme_autodiff_g2(ptr @quot, double %x, double %y)
  ret { double, double } %r
}
define double @fwd_vroot(double %x, double %y, double %dx) {
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @vroot, double %x, double %dx, double %y, double 0.0)
  ret double %r
}
@enzyme_width = external global i32

; sin, fmul and a division by a constant: plain products in both modes.
; FSMOOTH-LABEL: define internal double @fwddiffe_smooth
; FSMOOTH-NOT: fcmp
; FSMOOTH-NOT: select
; FSMOOTH: ret double
; RSMOOTH-LABEL: define internal {{.*}} @reverse_smooth
; RSMOOTH-NOT: fcmp
; RSMOOTH-NOT: select
; RSMOOTH: ret

; sqrt: the tangent is compared with +0, flag-free although the primal sqrt is `fast`.
; ROOT-LABEL: define internal double @fwddiffe_root
; ROOT-SAME: (double %x, double %[[DX:[^)]+]])
; ROOT: %[[P:.+]] = fdiv double 5.000000e-01,
; ROOT: %[[M:.+]] = fmul double %[[P]], %[[DX]]
; ROOT: %[[Z:.+]] = fcmp oeq double %[[DX]], 0.000000e+00
; ROOT: select i1 %[[Z]], double 0.000000e+00, double %[[M]]
; ROOT: ret double

; Width 2: one partial, one compare and one select per lane.
; ROOT2-LABEL: define internal { double, double } @fwddiffe_root
; ROOT2-SAME: (double %x, double %[[D0:[^,]+]], double %[[D1:[^)]+]])
; ROOT2: fdiv double 5.000000e-01,
; ROOT2-NOT: fdiv
; ROOT2: fcmp oeq double %[[D0]], 0.000000e+00
; ROOT2: select i1
; ROOT2: fcmp oeq double %[[D1]], 0.000000e+00
; ROOT2: select i1
; ROOT2: ret { double, double }

; log and both partials of the division, guarded on the adjoint without the primal's `fast`.
; QUOT-LABEL: define internal {{.*}} @reverse_quot
; QUOT: fcmp oeq double %dret, 0.000000e+00
; QUOT: select i1
; QUOT: select i1
; QUOT: select i1
; QUOT-NOT: select
; QUOT: ret

; <2 x double> sqrt: the tangent vector is compared lane-wise.
; VROOT-LABEL: define internal double @fwddiffe_vroot
; VROOT: fcmp oeq <2 x double> %{{.+}}, zeroinitializer
; VROOT: select <2 x i1> %{{.+}}, <2 x double> zeroinitializer, <2 x double>
; VROOT: ret double
