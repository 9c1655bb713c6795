// Malformed split-mode calls are compile-time errors naming the call and the fix.
// RUN: not %synthase-cc -O0 -DNOTAPE -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOTAPE
// RUN: not %synthase-cc -O0 -DSMALL -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=SMALL
// RUN: not %synthase-cc -O0 -DDYNSIZE -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=DYNSIZE
// RUN: not %synthase-cc -O0 -DNOSIZE -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOSIZE
// RUN: not %synthase-cc -O0 -DSHAPE -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=SHAPE
// NOTAPE: error: synthase: in function 'rev': __enzyme_reverse: the last argument must be the tape __enzyme_augmentfwd returned
// NOTAPE: hint:
// SMALL: error: synthase: {{.*}}__enzyme_augmentfwd: enzyme_allocated 16 bytes is smaller than a tape's header (32 bytes)
// SMALL: hint: allocate the size __enzyme_augmentsize returns
// DYNSIZE: error: synthase: {{.*}}the size after enzyme_allocated must be a compile-time constant
// NOSIZE: error: synthase: {{.*}}__enzyme_augmentfwd: enzyme_tape without enzyme_allocated
// SHAPE: error: synthase: {{.*}}__enzyme_augmentfwd: the declared result '{ double, double }' does not hold what the call produces: {ptr, double}
extern int enzyme_dup, enzyme_const, enzyme_tape, enzyme_allocated;
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);
typedef struct { double a, b; } two;
two __enzyme_augmentfwd_two(void *, ...);
static double f(double *x) { return x[0] * x[0]; }
#ifdef NOTAPE
void rev(double *x, double *dx) { __enzyme_reverse((void *)f, enzyme_dup, x, dx, 1.0); }
#endif
#ifdef SMALL
void aug(double *x, double *dx, void *buf) {
  __enzyme_augmentfwd((void *)f, enzyme_allocated, 16, enzyme_tape, buf, enzyme_dup, x, dx);
}
#endif
#ifdef DYNSIZE
void aug(double *x, double *dx, void *buf, int n) {
  __enzyme_augmentfwd((void *)f, enzyme_allocated, n, enzyme_tape, buf, enzyme_dup, x, dx);
}
#endif
#ifdef NOSIZE
void aug(double *x, double *dx, void *buf) { __enzyme_augmentfwd((void *)f, enzyme_tape, buf, enzyme_dup, x, dx); }
#endif
#ifdef SHAPE
double aug(double *x, double *dx) { return __enzyme_augmentfwd_two((void *)f, enzyme_dup, x, dx).a; }
#endif
