; Malformed declarative items are diagnostics naming the placeholder and the item (opt stops at
; the first error, so each case is its own module).
; RUN: split-file %s %t
; RUN: not %opt -passes=synthase -disable-output %t/bad_mode.ll 2>&1 | %FileCheck %s --check-prefix=MODE
; RUN: not %opt -passes=synthase -disable-output %t/no_source.ll 2>&1 | %FileCheck %s --check-prefix=SOURCE
; RUN: not %opt -passes=synthase -disable-output %t/none_input.ll 2>&1 | %FileCheck %s --check-prefix=NONE
; RUN: not %opt -passes=synthase -disable-output %t/dualv_alone.ll 2>&1 | %FileCheck %s --check-prefix=DUALV
; RUN: not %opt -passes=synthase -disable-output %t/wrong_shadow.ll 2>&1 | %FileCheck %s --check-prefix=SHADOW
; RUN: not %opt -passes=synthase -disable-output %t/too_few.ll 2>&1 | %FileCheck %s --check-prefix=FEW

; MODE: in function 'bad_mode': {{.*}}unknown mode 'sideways'
; SOURCE: autodiff item 'nope' -> 'no_source': could not find source function 'nope'
; NONE: autodiff item 'f' -> 'none_input': None is not a valid input activity
; DUALV: autodiff item 'f' -> 'dualv_alone': Dualv (input #0) must be followed by FakeActivitySize
; SHADOW: autodiff item 'f' -> 'wrong_shadow': the shadow of input #0 (Dual) has type float, but its primal has type double
; FEW: autodiff item 'f' -> 'too_few': too few placeholder arguments

;--- bad_mode.ll
define double @f(double %x) {
  ret double %x
}
define double @bad_mode(double %x) "synthase-autodiff"="source=f;mode=sideways;args=Active" {
  ret double 0.0
}
;--- no_source.ll
define double @no_source(double %x) "synthase-autodiff"="source=nope;mode=reverse;args=Active" {
  ret double 0.0
}
;--- none_input.ll
define double @f(double %x) {
  ret double %x
}
define double @none_input(double %x) "synthase-autodiff"="source=f;mode=reverse;args=None" {
  ret double 0.0
}
;--- dualv_alone.ll
define double @f(double %x) {
  ret double %x
}
define double @dualv_alone(ptr %a, ptr %da) "synthase-autodiff"="source=f;mode=forward;args=Dualv" {
  ret double 0.0
}
;--- wrong_shadow.ll
define double @f(double %x) {
  ret double %x
}
define double @wrong_shadow(double %x, float %dx) "synthase-autodiff"="source=f;mode=forward;args=Dual" {
  ret double 0.0
}
;--- too_few.ll
define double @f(double %x) {
  ret double %x
}
define double @too_few(double %x) "synthase-autodiff"="source=f;mode=forward;args=Dual" {
  ret double 0.0
}
