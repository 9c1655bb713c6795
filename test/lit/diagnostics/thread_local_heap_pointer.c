// A thread-local pointer global to a heap block has no shadow (only a global that is not
// thread-local gets a run-time shadow block): writing differentiated values through it is refused,
// naming the global and what works instead (a thread-local array, or an enzyme_dup argument).
// RUN: not %synthase-cc -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: synthase: in function 'f': an active value is stored into memory that has no shadow
// CHECK: hint: thread-local global 'tp' holds a pointer assigned at run time{{.*}}use a thread-local array of fixed size
#include <stdlib.h>
extern int enzyme_dup;
double __enzyme_autodiff(void *, ...);
static _Thread_local double *tp;
double f(const double *x) {
  if (!tp)
    tp = (double *)malloc(3 * sizeof(double));
  tp[0] = x[0] * x[0];
  return tp[0] * x[1];
}
void grad(const double *x, double *dx) { __enzyme_autodiff((void *)f, enzyme_dup, x, dx); }
