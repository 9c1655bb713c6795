; The inspection options of seed 001: print the module before AD, after AD, and the AD passes as
; they run; in synthase-opt (-print-before-ad, -print-after-ad, -print-ad-passes) and in the
; plugin's pass parameters (synthase<print-before;print-after;print-passes;no-postopt;O0..O3>,
; separated by ';' as LLVM pipeline parameters are). Everything goes to stderr.
; RUN: %synthase-opt -print-before-ad -no-postopt %s -o /dev/null 2>&1 | %FileCheck %s --check-prefix=BEFORE
; RUN: %opt -passes='synthase<print-before;no-postopt>' %s -o /dev/null 2>&1 | %FileCheck %s --check-prefix=BEFORE
; RUN: %synthase-opt -print-after-ad -no-postopt %s -o /dev/null 2>&1 | %FileCheck %s --check-prefix=AFTER
; RUN: %opt -passes='synthase<print-after;no-postopt>' %s -o /dev/null 2>&1 | %FileCheck %s --check-prefix=AFTER
; With the post-AD optimization, "after" is the module as the tool writes it: placeholders inlined.
; RUN: %synthase-opt -print-after-ad -O2 %s -o /dev/null 2>&1 | %FileCheck %s --check-prefix=AFTER-OPT
; RUN: %opt -passes='synthase<print-after>' %s -o /dev/null 2>&1 | %FileCheck %s --check-prefix=AFTER-OPT
; RUN: %synthase-opt -print-ad-passes -O3 %s -o /dev/null 2>&1 | %FileCheck %s --check-prefixes=PASSES,PASSES-O3
; RUN: %opt -passes='synthase<print-passes;O3>' %s -o /dev/null 2>&1 | %FileCheck %s --check-prefixes=PASSES,PASSES-O3
; RUN: %synthase-opt -print-ad-passes -no-postopt %s -o /dev/null 2>&1 | %FileCheck %s --check-prefixes=PASSES,PASSES-NOPOST
; RUN: %opt -passes='enzyme<print-passes;no-postopt>' %s -o /dev/null 2>&1 | %FileCheck %s --check-prefixes=PASSES,PASSES-NOPOST
; Without the options nothing is printed.
; RUN: %synthase-opt %s -o /dev/null 2>&1 | count 0
; RUN: %opt -passes=synthase %s -o /dev/null 2>&1 | count 0
; An unknown parameter is refused.
; RUN: not %opt -passes='synthase<print-after;bogus>' %s -o /dev/null 2>&1 | %FileCheck %s --check-prefix=BAD

; BEFORE: ; *** Synthase: module before AD ***
; BEFORE: define double @dsq(double %x) #[[PH:[0-9]+]]
; BEFORE-NEXT: call double (...) @__enzyme_autodiff_dsq(ptr @sq, metadata !"enzyme_out", double %x)
; BEFORE: declare double @__enzyme_autodiff_dsq(...)
; BEFORE: attributes #[[PH]] = { noinline "enzyme_marker" }
; BEFORE-NOT: Synthase: module after AD

; AFTER-NOT: Synthase: module before AD
; AFTER: ; *** Synthase: module after AD ***
; AFTER: define double @dsq(double %x) #[[PH:[0-9]+]]
; AFTER-NOT: __enzyme
; AFTER: call {{.*}}@reverse_sq
; AFTER-NOT: declare {{.*}}@__enzyme_
; AFTER: attributes #[[PH]] = { alwaysinline "enzyme_marker" }

; AFTER-OPT: ; *** Synthase: module after AD ***
; AFTER-OPT-LABEL: define double @user(
; AFTER-OPT-NOT: call
; AFTER-OPT: ret double

; PASSES: synthase: lowering AD call sites
; PASSES-NEXT: synthase: inlining post-pass
; PASSES-O3-NEXT: synthase: post-AD optimization at O3
; PASSES-NOPOST-NOT: post-AD optimization

; BAD: synthase: unknown synthase option 'bogus'

define internal double @sq(double %x) #0 {
  %y = fmul double %x, %x
  ret double %y
}

define double @dsq(double %x) #1 {
  %r = call double (...) @__enzyme_autodiff_dsq(ptr @sq, metadata !"enzyme_out", double %x)
  ret double %r
}

define double @user(double %x) {
  %d = call double @dsq(double %x)
  ret double %d
}

declare double @__enzyme_autodiff_dsq(...) #2

attributes #0 = { "enzyme_marker" }
attributes #1 = { noinline "enzyme_marker" }
attributes #2 = { noinline }
