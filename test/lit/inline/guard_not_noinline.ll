; The guard of seed 001: a marked placeholder is expected to be noinline until AD has run. One
; that is not gets a warning naming it (the front end or the pipeline changed); it is still made
; alwaysinline. A placeholder that is noinline gets no warning.
; RUN: %synthase-opt -S -no-postopt %s -o %t.ll 2>&1 | %FileCheck %s --check-prefix=WARN --implicit-check-not=warning:
; RUN: %FileCheck %s --check-prefix=IR < %t.ll
; RUN: %opt -S -passes='synthase<no-postopt>' %s -o /dev/null 2>&1 | %FileCheck %s --check-prefix=WARN --implicit-check-not=warning:

; WARN: warning: synthase: in function 'dsq_inlinable': autodiff placeholder was expected to be noinline until AD ran; the pipeline may have changed

define internal double @sq(double %x) #0 {
  %y = fmul double %x, %x
  ret double %y
}

; IR-LABEL: define double @dsq_inlinable(
; IR-SAME: #[[PH:[0-9]+]]
define double @dsq_inlinable(double %x) #1 {
  %r = call double (...) @__enzyme_autodiff_dsq_inlinable(ptr @sq, metadata !"enzyme_out", double %x)
  ret double %r
}

; IR-LABEL: define double @dsq(
; IR-SAME: #[[PH]]
define double @dsq(double %x) #2 {
  %r = call double (...) @__enzyme_autodiff_dsq(ptr @sq, metadata !"enzyme_out", double %x)
  ret double %r
}

declare double @__enzyme_autodiff_dsq_inlinable(...) #3
declare double @__enzyme_autodiff_dsq(...) #3

attributes #0 = { "enzyme_marker" }
attributes #1 = { "enzyme_marker" }
attributes #2 = { noinline "enzyme_marker" }
attributes #3 = { noinline }

; IR: attributes #[[PH]] = { alwaysinline "enzyme_marker" }
