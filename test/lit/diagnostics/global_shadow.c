// The global-shadow API refuses what it cannot follow at compile time instead of returning a
// shadow that would hold a wrong number: a global pointer set at run time into the middle of a
// heap block (a whole block gets a shadow block of its size; a part of one cannot), a context that is not a compile-time
// __enzyme_context call site, a lane outside the width.
// RUN: not %synthase-cc -O0 -DHEAP -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=HEAP
// RUN: not %synthase-cc -O2 -DHEAP -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=HEAP
// RUN: not %synthase-cc -O0 -DPARAM -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=PARAM
// RUN: not %synthase-cc -O0 -DLANE -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=LANE
// HEAP: synthase: in function 'main': __enzyme_shadow: 'heap' has no shadow Synthase can follow{{.*}}pointer into a block
// HEAP: hint: {{.*}}enzyme_dup arguments
// PARAM: synthase: in function 'grad'{{.*}}enzyme_context must be followed by a context known at compile time
// PARAM: hint: create it with void *ctx = __enzyme_context(width)
// LANE: synthase: in function 'main': __enzyme_shadow: the lane must be a constant below the width (2)
#include <stdlib.h>
extern int enzyme_context;
void *__enzyme_context(int);
void *__enzyme_shadow(void *, void *, int);
double __enzyme_autodiff(void *, ...);
double *heap;
double g = 1.0;
__attribute__((noinline)) void setup(void) { heap = (double *)malloc(4 * sizeof(double)) + 1; }
static double f(double x) { return heap[0] * x + g * x; }
#ifdef HEAP
int main(void) {
  setup();
  void *ctx = __enzyme_context(1);
  double **dheap = (double **)__enzyme_shadow(ctx, &heap, 0);
  return (int)__enzyme_autodiff((void *)f, enzyme_context, ctx, 1.0) + (*dheap != 0);
}
#endif
#ifdef PARAM
__attribute__((noinline)) double grad(void *ctx, double x) { return __enzyme_autodiff((void *)f, enzyme_context, ctx, x); }
int main(void) { return (int)grad(__enzyme_context(1), 2.0); }
#endif
#ifdef LANE
int main(void) {
  void *ctx = __enzyme_context(2);
  return *(double *)__enzyme_shadow(ctx, &g, 2) != 0;
}
#endif
