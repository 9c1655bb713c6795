; The declarative front door in IR: a placeholder carrying "synthase-autodiff" is filled with the
; engine call by the bridge and lowered in the same pass; the attribute is consumed and both ends
; are marked enzyme_marker.
; RUN: %opt -passes='synthase<no-postopt>' -S %s | %FileCheck %s
; RUN: %synthase-opt -no-postopt -S %s | %FileCheck %s

define double @square(double %x) {
  %y = fmul double %x, %x
  ret double %y
}

define double @dsquare(double %x) noinline "synthase-autodiff"="source=square;mode=reverse;ret=ActiveOnly;args=Active" {
  ret double 0.0
}

; CHECK-LABEL: define {{.*}}double @dsquare(double %x)
; CHECK-SAME: #[[PH:[0-9]+]]
; CHECK-NOT: ret double 0.0
; CHECK-NOT: __enzyme_autodiff
; CHECK: call {{.*}}(double %x
; CHECK: ret double
; CHECK-NOT: declare {{.*}}__enzyme_autodiff
; CHECK: attributes #[[PH]] = {{{.*}}"enzyme_marker"
; CHECK-NOT: synthase-autodiff
