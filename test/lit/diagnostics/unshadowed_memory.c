// One soundness rule for both modes: derivative data written into memory that has no shadow is
// refused (it would be read back without its derivative), naming the store, where the memory came
// from and a fix. Each function below is one member of the class; every one of them used to give
// a silently partial gradient in reverse mode.
// RUN: not %synthase-cc -O0 -g -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O2 -g -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O3 -march=native -g -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O0 -g -DFORWARD -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O2 -g -DFORWARD -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cxx -x c++ -O2 -g -c %s -o /dev/null 2>&1 | FileCheck %s
#include <stddef.h>
#include <string.h>
#ifdef __cplusplus
extern "C" {
#endif
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_const, enzyme_dup, enzyme_out;
double *arena_alloc(size_t bytes); /* a user allocator Synthase has not been told about */
#ifdef __cplusplus
}
#endif

#ifdef FORWARD
#define AD(f, ...) __enzyme_fwddiff((void *)f, __VA_ARGS__)
#define DUP(x, dx) enzyme_dup, x, dx
#else
#define AD(f, ...) __enzyme_autodiff((void *)f, __VA_ARGS__)
#define DUP(x, dx) enzyme_dup, x, dx
#endif

// CHECK-DAG: unshadowed_memory.c:[[@LINE+3]]:{{[0-9]+}}: in function 'workspace{{[^']*}}': an active value is stored into memory that has no shadow{{.*}}(the memory: argument 2{{.*}}
static double workspace(const double *x, double *w, int n) {
  for (int i = 0; i < n; i++)
    w[i] = x[i] * x[i];
  double s = 0;
  for (int i = 0; i < n; i++)
    s += w[i] * x[i];
  return s;
}

struct Ctx { double *work; int n; };
// CHECK-DAG: unshadowed_memory.c:[[@LINE+3]]:{{[0-9]+}}: in function 'ctx_workspace{{[^']*}}': an active value is stored into memory that has no shadow{{.*}}(the memory: a pointer loaded from memory that has no shadow
static double ctx_workspace(const double *x, const struct Ctx *c) {
  for (int i = 0; i < c->n; i++)
    c->work[i] = x[i] * x[i];
  double s = 0;
  for (int i = 0; i < c->n; i++)
    s += c->work[i] * x[i];
  return s;
}

// CHECK-DAG: unshadowed_memory.c:[[@LINE+4]]:{{[0-9]+}}: in function 'user_allocator{{[^']*}}': an active value is stored into memory that has no shadow{{.*}}(the memory: the result of a call to 'arena_alloc')
static double user_allocator(const double *x, int n) {
  double *v = arena_alloc(sizeof(double) * n);
  for (int i = 0; i < n; i++)
    v[i] = x[i] * x[i];
  double s = 0;
  for (int i = 0; i < n; i++)
    s += v[i] * x[i];
  return s;
}

// CHECK-DAG: unshadowed_memory.c:[[@LINE+2]]:{{[0-9]+}}: in function 'copy_into_const{{[^']*}}': differentiated data is copied into memory that has no shadow{{.*}}(the memory: argument 2
static double copy_into_const(const double *x, double *w, int n) {
  memcpy(w, x, sizeof(double) * n);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += w[i] * x[i];
  return s;
}

struct Holder { double *p; };
// CHECK-DAG: unshadowed_memory.c:[[@LINE+2]]:{{[0-9]+}}: in function 'pointer_into_const{{[^']*}}': a pointer to differentiated memory is stored into memory that has no shadow
static double pointer_into_const(double *x, struct Holder *h) {
  h->p = x;
  return h->p[0] * h->p[1];
}

double run(double *x, double *dx, double *w, struct Ctx *c, struct Holder *h) {
  double r = AD(workspace, DUP(x, dx), enzyme_const, w, enzyme_const, 4);
  r += AD(ctx_workspace, DUP(x, dx), enzyme_const, c);
  r += AD(user_allocator, DUP(x, dx), enzyme_const, 4);
  r += AD(copy_into_const, DUP(x, dx), enzyme_const, w, enzyme_const, 4);
  r += AD(pointer_into_const, DUP(x, dx), enzyme_const, h);
  return r;
}
