; -no-postopt stops right after AD: the generated tangent, augmented and reverse functions stay
; separate functions whose attributes can be inspected (they inherit the source's target
; attributes and nounwind, and are not left noinline/optnone). Without it they are inlined away.
; RUN: %synthase-opt -no-postopt -S %s | %FileCheck %s --check-prefix=NOPOST
; RUN: %opt -passes='synthase<no-postopt>' -S %s | %FileCheck %s --check-prefix=NOPOST
; RUN: %synthase-opt -S %s | %FileCheck %s --check-prefix=POST
; RUN: %opt -passes=synthase -S %s | %FileCheck %s --check-prefix=POST

@enzyme_const = external global i32

declare double @__enzyme_autodiff(ptr, ...)
declare double @__enzyme_fwddiff(ptr, ...)
declare double @llvm.sin.f64(double)
declare double @exp(double)

define internal double @f(double %x, double %y) #0 {
  %s = call double @llvm.sin.f64(double %x)
  %m = fmul double %s, %y
  %e = call double @exp(double %m)
  ret double %e
}

define double @df_dx(double %x, double %y) #1 {
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double 1.0, double %y, double 0.0)
  ret double %r
}

define double @grad_x(double %x, double %y) #1 {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, ptr @enzyme_const, double %y)
  ret double %r
}

attributes #0 = { noinline nounwind optnone "target-cpu"="x86-64" }
attributes #1 = { nounwind "target-cpu"="x86-64" }

; NOPOST-LABEL: define double @df_dx(
; NOPOST-NEXT: call double @[[TAN:fwddiffe_f[.0-9]*]](double %x, double 1.0{{.*}}, double %y, double 0.0
; NOPOST-LABEL: define double @grad_x(
; NOPOST: call double @[[AUG:augmented_f[.0-9]*]](double %x, double %y, ptr
; NOPOST: call double @[[REV:reverse_f[.0-9]*]](double %x, double %y, double 1.0{{.*}}, ptr
; NOPOST-DAG: define internal double @[[AUG]]({{.*}}) #[[GEN:[0-9]+]]
; NOPOST-DAG: define internal double @[[REV]]({{.*}}) #[[GEN]]
; NOPOST-DAG: define internal double @[[TAN]]({{.*}}) #[[GEN]]
; NOPOST-DAG: attributes #[[GEN]] = { nounwind "target-cpu"="x86-64" }
; NOPOST-NOT: @enzyme_const
; NOPOST-NOT: __enzyme_

; POST-NOT: define {{.*}}fwddiffe_f
; POST-NOT: define {{.*}}augmented_f
; POST-NOT: define {{.*}}reverse_f
; POST-LABEL: define double @df_dx(
; POST-NOT: call {{.*}}@{{fwddiffe|augmented|reverse}}_f
; POST-LABEL: define double @grad_x(
; POST-NOT: call {{.*}}@{{fwddiffe|augmented|reverse}}_f
; POST-NOT: __enzyme_
