// Parts of Enzyme's API beyond __enzyme_autodiff / __enzyme_fwddiff: type hints are accepted and
// dropped (the derivative is still right), split mode works (more in integration/split_mode.c),
// entry points Synthase does not implement (forward split mode) are refused at compile time, and
// custom-derivative registrations are used (see integration/custom_derivatives.c), with no
// "ignored" warning left.
// RUN: %synthase-cc -O0 -DHINTS %s -o %t && %t
// RUN: %synthase-cc -O2 -DHINTS %s -o %t2 && %t2
// RUN: %synthase-cc -O0 -DSPLIT %s -o %t3 && %t3
// RUN: not %synthase-cc -O0 -DFWDSPLIT -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=SPLIT
// RUN: %synthase-cc -O0 -DREGISTER %s -o %t4 2>&1 | FileCheck %s --check-prefix=REG --allow-empty && %t4
// SPLIT: synthase: {{.*}}Enzyme API '__enzyme_fwdsplit' is not supported by Synthase
// SPLIT: hint: supported entry points{{.*}}__enzyme_augmentfwd
// REG-NOT: warning
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
void __enzyme_float(void *, int);
static double sq(double *x) {
  __enzyme_float(x, sizeof(double));
  return x[0] * x[0];
}
#ifdef SPLIT
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);
int main(void) {
  double x = 3, dx = 0;
  void *tape = __enzyme_augmentfwd((void *)sq, enzyme_dup, &x, &dx);
  __enzyme_reverse((void *)sq, enzyme_dup, &x, &dx, 1.0, tape);
  return dx != 6;
}
#endif
#ifdef FWDSPLIT
double __enzyme_fwdsplit(void *, ...);
double tangent_of(double *x, double *dx) { return __enzyme_fwdsplit((void *)sq, enzyme_dup, x, dx, (void *)0); }
#endif
#ifdef REGISTER
static double sq_aug(double *x, double *dx) { (void)dx; return sq(x); }
static void sq_rev(double *x, double *dx, double dret) { dx[0] += 3 * dret * x[0]; } /* not 2: proves it is used */
void *__enzyme_register_gradient_sq[] = {(void *)sq, (void *)sq_aug, (void *)sq_rev};
static double twice(double *x) { return 2 * sq(x); }
int main(void) {
  double x = 3, dx = 0;
  __enzyme_autodiff((void *)twice, enzyme_dup, &x, &dx);
  return dx != 18;
}
#endif
#ifdef HINTS
int main(void) {
  double x = 3, dx = 0;
  __enzyme_autodiff((void *)sq, enzyme_dup, &x, &dx);
  return dx != 6; // d(x^2)/dx at 3
}
#endif
