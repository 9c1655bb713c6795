// Malformed custom-derivative registrations are compile-time errors naming the registration,
// what is wrong and Enzyme's convention, never a crash or a silently ignored derivative. A
// registration for a function nothing calls is at most a warning; a split derivative (used only
// by __enzyme_fwdsplit, which Synthase refuses) is ignored with a warning.
// RUN: not %synthase-cc -O0 -DCOUNT -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: not %synthase-cc -O2 -DNOTFN -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOTFN
// RUN: not %synthase-cc -O0 -DAUGARGS -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=AUGARGS
// RUN: not %synthase-cc -O0 -DREVRET -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REVRET
// RUN: not %synthase-cc -O0 -DREVTAPE -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REVTAPE
// RUN: not %synthase-cc -O0 -DFWDARGS -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=FWDARGS
// RUN: not %synthase-cc -O0 -DFWDRET -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=FWDRET
// RUN: not %synthase-cc -O0 -DTWICE -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: %synthase-cc -O0 -DUNCALLED %s -o %t.u 2>&1 | FileCheck %s --check-prefix=UNCALLED --allow-empty
// RUN: %clang -O0 -Xclang -disable-O0-optnone -DUNCALLED -S -emit-llvm %s -o %t.ll
// RUN: %synthase-opt %t.ll -o %t.bc 2>&1 | FileCheck %s --check-prefix=UNCALLED-OPT
// RUN: %synthase-cc -O0 -DSPLIT -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=SPLIT
// COUNT: synthase: custom derivative registration '__enzyme_register_gradient_f' is malformed: it has 2 entries, expected 3: {(void *)f, (void *)augmented_f, (void *)reverse_f}
// COUNT-NEXT: detail: Enzyme's convention:
// NOTFN: synthase: custom derivative registration '__enzyme_register_derivative_f' is malformed: entry 2 is not a function
// AUGARGS: '__enzyme_register_gradient_f' is malformed: the augmented function 'f_aug' takes (double, ptr), but for 'f' double (double, ptr, i32) it must take (double, ptr, ptr, i32, i32)
// REVRET: '__enzyme_register_gradient_f' is malformed: the reverse function 'g2_rev_one' returns double, but for 'g2' it must return the adjoints of its floating-point arguments (double, double) as a struct
// REVTAPE: the reverse function 'f_rev_tape' takes a tape of type double, but the augmented function returns a tape of type ptr
// FWDARGS: '__enzyme_register_derivative_f' is malformed: the forward derivative 'f_fwd_short' takes (double, ptr, i32), but for 'f' double (double, ptr, i32) it must take (double, double, ptr, ptr, i32, i32)
// FWDRET: the forward derivative 'f_fwd_void' returns void, but for 'f' it must return the tangent double or {result, tangent} { double, double }
// TWICE: '__enzyme_register_derivative_f2' is malformed: 'f' already has a forward derivative registered by '__enzyme_register_derivative_f'
// UNCALLED-NOT: error
// UNCALLED-OPT: warning: synthase: custom derivative registration '__enzyme_register_gradient_h' is for 'h', which is never called in this module
// SPLIT: warning: synthase: '__enzyme_register_splitderivative_f' registers a split forward derivative, used only by __enzyme_fwdsplit, which Synthase does not support; it is ignored
#include <stddef.h>
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

double f(double x, const double *v, int n) { return x * v[0] * n; }
double g2(double x, double y) { return x * y; }

double f_aug(double x, const double *v) { (void)v; return x; }
double f_rev_one(double x, double y, double dret) { (void)y; return x * dret; }
void *f_aug_tape(double x, const double *v, const double *dv, int n, int dn) { (void)x, (void)v, (void)dv, (void)n, (void)dn; return NULL; }
void f_rev_tape(double x, const double *v, double *dv, int n, int dn, double dret, double tape) {
  (void)x, (void)v, (void)dv, (void)n, (void)dn, (void)dret, (void)tape;
}
double f_aug_ok(double x, const double *v, const double *dv, int n, int dn) { (void)dv, (void)dn; return f(x, v, n); }
double f_rev_ok(double x, const double *v, double *dv, int n, int dn, double dret) {
  (void)dn;
  dv[0] += dret * x * n;
  return dret * v[0] * n;
}
double f_fwd_short(double x, const double *v, int n) { return x + v[0] + n; }
void f_fwd_void(double x, double dx, const double *v, const double *dv, int n, int dn) { (void)x, (void)dx, (void)v, (void)dv, (void)n, (void)dn; }
double f_fwd_ok(double x, double dx, const double *v, const double *dv, int n, int dn) { (void)dn; return (dx * v[0] + x * dv[0]) * n; }
double g2_aug(double x, double y) { return x * y; }
double g2_rev_one(double x, double y, double dret) { (void)y; return x * dret; }

#if defined(COUNT)
void *__enzyme_register_gradient_f[2] = {(void *)f, (void *)f_aug_ok};
#elif defined(NOTFN)
int not_a_function;
void *__enzyme_register_derivative_f[2] = {(void *)f, (void *)&not_a_function};
#elif defined(AUGARGS)
void *__enzyme_register_gradient_f[3] = {(void *)f, (void *)f_aug, (void *)f_rev_ok};
#elif defined(REVRET)
void *__enzyme_register_gradient_f[3] = {(void *)g2, (void *)g2_aug, (void *)g2_rev_one};
#elif defined(REVTAPE)
void *__enzyme_register_gradient_f[3] = {(void *)f, (void *)f_aug_tape, (void *)f_rev_tape};
#elif defined(FWDARGS)
void *__enzyme_register_derivative_f[2] = {(void *)f, (void *)f_fwd_short};
#elif defined(FWDRET)
void *__enzyme_register_derivative_f[2] = {(void *)f, (void *)f_fwd_void};
#elif defined(TWICE)
void *__enzyme_register_derivative_f[2] = {(void *)f, (void *)f_fwd_ok};
void *__enzyme_register_derivative_f2[2] = {(void *)f, (void *)f_fwd_ok};
#elif defined(SPLIT)
void *__enzyme_register_splitderivative_f[3] = {(void *)f, (void *)f_aug_ok, (void *)f_rev_ok};
#elif defined(UNCALLED)
double h(double x) { return 2 * x; }
double h_aug(double x) { return 2 * x; }
double h_rev(double x, double dret) { (void)x; return 2 * dret; }
void *__enzyme_register_gradient_h[3] = {(void *)h, (void *)h_aug, (void *)h_rev};
int main(void) { return 0; }
#endif

#ifndef UNCALLED
static double outer(double x, const double *v) { return f(x, v, 2) + g2(x, v[0]); }
double use(double x, const double *v, double *dv) {
  return __enzyme_autodiff((void *)outer, x, enzyme_dup, v, dv) + __enzyme_fwddiff((void *)outer, x, 1.0, enzyme_dup, v, dv);
}
#endif
