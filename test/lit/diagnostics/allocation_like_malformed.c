// A malformed __enzyme_allocation_like registration is an error that says what is wrong and how
// to write it, never a silently ignored allocator (whose shadow would then be missing or wrong).
// RUN: not %synthase-cc -O0 -DBAD_SIZE -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=SIZE
// RUN: not %synthase-cc -O2 -DBAD_FREE_ARGS -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=ARGS
// RUN: not %synthase-cc -O0 -DNO_FREE -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOFREE
// SIZE: synthase: '__enzyme_allocation_like' is malformed: the second entry must be the index of an integer (size) argument of 'my_alloc'
// SIZE-NEXT: detail: write {(void *)alloc, (void *)SIZE_ARG_INDEX
// ARGS-NOT: synthase: {{.*}}stored
// ARGS: synthase: '__enzyme_allocation_like' is malformed: the deallocator's arguments "0,1" do not fit 'my_free'
// NOFREE: synthase: '__enzyme_allocation_like' is malformed: the fourth entry is not a function
#include <stdlib.h>
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
void *my_alloc(void *pool, size_t n) { (void)pool; return malloc(n); }
void my_free(void *p) { free(p); }
#if defined(BAD_SIZE)
void *__enzyme_allocation_like[4] = {(void *)my_alloc, (void *)0, (void *)"free", (void *)my_free};
#elif defined(BAD_FREE_ARGS)
void *__enzyme_allocation_like[4] = {(void *)my_alloc, (void *)1, (void *)"0,1", (void *)my_free};
#else
void *__enzyme_allocation_like[4] = {(void *)my_alloc, (void *)1, (void *)"free", (void *)0};
#endif
static double f(const double *x, int n) {
  double *t = (double *)my_alloc(0, sizeof(double) * n);
  double s = 0;
  for (int i = 0; i < n; ++i) {
    t[i] = x[i] * x[i];
    s += t[i];
  }
  my_free(t);
  return s;
}
double grad(const double *x, double *dx, int n) {
  return __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n);
}
