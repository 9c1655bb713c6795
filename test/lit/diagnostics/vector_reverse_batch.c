// Malformed vector reverse-mode and batch calls are compile-time errors naming the call and the fix.
// RUN: not %synthase-cc -O0 -DSEEDS -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=SEEDS
// RUN: not %synthase-cc -O0 -DSHAPE -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: not %synthase-cc -O0 -DCUSTOM -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=CUSTOM
// RUN: not %synthase-cc -O0 -DFEW -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=FEW
// RUN: not %synthase-cc -O0 -DMANY -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=MANY
// RUN: not %synthase-cc -O0 -DSMALL -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=SMALL
// RUN: not %synthase-cc -O0 -DSTRIDE -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=STRIDE
// SEEDS: error: synthase: in function 'seeds': __enzyme_autodiff: the seeds of the return adjoint {{.*}} are not 2 values of its return type 'double'
// SEEDS: hint: with enzyme_width N pass N seeds, one per lane, or none
// SHAPE: error: synthase: {{.*}}the adjoint of argument 0 in lane 1
// CUSTOM: error: synthase: in function 'custom': __enzyme_autodiff: vector reverse mode (enzyme_width 2) of 'h', which has a registered gradient, is not supported
// FEW: error: synthase: in function 'few': __enzyme_batch: too few arguments: argument 0 of 'sq' needs 4 values, one per lane is missing
// MANY: error: synthase: in function 'many': __enzyme_batch: too many arguments: 'sq' has 1 parameters
// SMALL: error: synthase: {{.*}}__enzyme_batch: the call is declared to return 'double' (8 bytes), which cannot hold the 4 results of 'sq'
// STRIDE: error: synthase: {{.*}}__enzyme_batch: enzyme_buffer must be followed by a byte stride (argument 0)
extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_width, enzyme_vector, enzyme_buffer;
double __enzyme_autodiff(void *, ...);
double __enzyme_batch(void *, ...);
typedef struct { double a, b, c, d; } four;
four __enzyme_batch4(void *, ...);
void __enzyme_batchv(void *, ...);
static double f(double *x) { return x[0] * x[0]; }
static double q(double a) { return a * a; }
static double sq(double x) { return x * x; }
static void scale(double *p) { p[0] *= 2; }
#ifdef SEEDS
double seeds(double *x, double *d0, double *d1) {
  return __enzyme_autodiff((void *)f, enzyme_width, 2, enzyme_dup, x, d0, d1, 1.0, 2.0, 3.0);
}
#endif
#ifdef SHAPE
double shape(double a) { return __enzyme_autodiff((void *)q, enzyme_width, 2, enzyme_out, a); }
#endif
#ifdef CUSTOM
double h(double *x) { return x[0]; }
static double h_aug(double *x, double *dx) { return x[0]; }
static void h_rev(double *x, double *dx, double dret) { dx[0] += dret; }
void *__enzyme_register_gradient_h[3] = {(void *)h, (void *)h_aug, (void *)h_rev};
void custom(double *x, double *d0, double *d1) {
  __enzyme_autodiff((void *)h, enzyme_width, 2, enzyme_dup, x, d0, d1);
}
#endif
#ifdef FEW
four few(double a) { return __enzyme_batch4((void *)sq, enzyme_width, 4, enzyme_vector, a, a, a); }
#endif
#ifdef MANY
four many(double a) { return __enzyme_batch4((void *)sq, enzyme_width, 4, a, a, a, a, a); }
#endif
#ifdef SMALL
double small(double a) { return __enzyme_batch((void *)sq, enzyme_width, 4, a, a, a, a); }
#endif
#ifdef STRIDE
void stride(double *p) { __enzyme_batchv((void *)scale, enzyme_width, 2, enzyme_buffer, p); }
#endif
