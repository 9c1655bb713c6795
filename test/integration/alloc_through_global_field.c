// An allocator reached through a function-pointer field of a global struct that keeps its
// initializer: file-local and never written, or declared const. The field load folds to the
// allocator (Analysis/Preprocess.cpp foldNeverWrittenGlobals), so the block gets a shadow. A
// writable global other units could change (upstream metamalloc.c's `tup`) becomes a direct
// call of its initial allocator behind a run-time check.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O0 -I%inputs %s -o %t4 -lm && %t4
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t5 -lm && %t5
#include "check.h"

typedef void *(*alloc_fn)(size_t);
static struct { int count; alloc_fn allocfn; void (*freefn)(void *); } tup = {0, malloc, free};
extern const struct ctab { long tag; alloc_fn allocfn; } ctab;
const struct ctab ctab = {7, malloc};

struct { int count; alloc_fn allocfn; } open_tup = {0, malloc};

__attribute__((noinline)) static void *meta_open(size_t n) { return open_tup.allocfn(n); }
__attribute__((noinline)) static void *meta_static(size_t n) { return tup.allocfn(n); }
__attribute__((noinline)) static void *meta_const(size_t n) { return ctab.allocfn(n); }

static double through_fields(double x) {
  double *a = (double *)meta_static(2 * sizeof(double));
  double *b = (double *)meta_const(sizeof(double));
  double *c = (double *)meta_open(sizeof(double));
  a[0] = x * x;
  a[1] = sin(x);
  b[0] = a[0] * a[1];
  c[0] = b[0] * x;
  double r = b[0] + a[1] + c[0];
  tup.freefn(a);
  free(b);
  free(c);
  return r;
}

static double fd_fn(double x, void *ctx) { (void)ctx; return through_fields(x); }

int main(void) {
  double x = 0.9;
  /* r = x^2 sin x + sin x + x^3 sin x */
  double want = 2 * x * sin(x) + x * x * cos(x) + cos(x) + 3 * x * x * sin(x) + x * x * x * cos(x);
  double g = __enzyme_autodiff((void *)through_fields, x);
  CHECK_CLOSE(g, want, 1e-13, "rev vs analytic");
  CHECK_CLOSE(g, check_fd(fd_fn, 0, x), 1e-7, "rev vs FD");
  double t = __enzyme_fwddiff((void *)through_fields, x, 1.0);
  CHECK_CLOSE(t, want, 1e-13, "fwd vs analytic");
  CHECK_CLOSE(t, g, 1e-14, "fwd vs rev");
  return check_report();
}
