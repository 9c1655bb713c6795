; A call site whose function to differentiate is only declared: refused by synthase-opt.
declare double @__enzyme_autodiff(ptr, ...)
declare double @elsewhere(double)

define double @g(double %x) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @elsewhere, double %x)
  ret double %r
}
