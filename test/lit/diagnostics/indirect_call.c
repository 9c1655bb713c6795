// An indirect call on active data whose possible targets are unknown: no function of the call's
// type has its address taken in this module, so nothing can be dispatched to. The diagnostic
// names the function, the call and the source line (with -g).
// A target that exists but cannot be differentiated (inline asm) is a run-time abort of its
// branch only; when it is the only target, the compile fails and lists why.
// RUN: not %synthase-cc -O0 -g -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not %synthase-cc -O2 -g -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not %synthase-cc -O0 -g -DFORWARD -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not %synthase-cc -O0 -g -DASM -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=ASM
// RUN: not %synthase-cc -O2 -g -DASM -DFORWARD -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=ASM
// NONE: synthase: {{.*}}indirect_call.c:[[@LINE+20]]:{{[0-9]+}}: in function 'through':
// NONE-SAME: cannot differentiate an indirect call on active data: no function of type 'double (double, double, double)' has its address taken in this module
// NONE-NEXT: instruction: {{.*}}call double @synthase.indirect
// NONE-NEXT: hint: define the possible targets
// ASM: cannot differentiate an indirect call on active data: no possible target of type 'double (double, double, double)' could be differentiated
// ASM-NEXT: candidate 'asm_target': {{.*}}inline assembly
// REQUIRES: x86_64
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_const;

#ifdef ASM
static double asm_target(double x, double y, double z) {
  double r;
  __asm__("movsd %1, %0" : "=x"(r) : "x"(x * y + z));
  return r;
}
double (*volatile keep)(double, double, double) = asm_target;
#endif

__attribute__((noinline)) double through(double (*f)(double, double, double), double x) { return f(x, x, 1.0); }

double g(double (*f)(double, double, double), double x) {
#ifdef FORWARD
  return __enzyme_fwddiff((void *)through, enzyme_const, f, x, 1.0);
#else
  return __enzyme_autodiff((void *)through, enzyme_const, f, x);
#endif
}
