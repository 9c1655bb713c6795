// Pointer globals set to heap blocks before the derivative runs (as flang's ALLOCATE does): the
// shadow is a zeroed block of the same size, made at run time. Queried in a context, reverse mode
// accumulates the adjoints of the block's elements there (zeroed by __enzyme_zero_shadows), forward
// mode reads the tangents seeded there; when the global is pointed at a new block, a new shadow
// block is made. Without a query (context-free), the block's elements are active but their
// adjoints are internal, and the gradient in x is still right. Analytic derivatives of
// f(x) = sum_i c_i a_i^2 x + a_0 sin(x), and central differences for d/dx.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O1 -I%inputs %s -o %t1 -lm && %t1
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -x c++ -O3 -I%inputs %s -o %t3 -lm && %t3
#include "check.h"
#include <math.h>
#include <stdlib.h>

extern int enzyme_context;
#ifdef __cplusplus
extern "C" {
#endif
void *__enzyme_context(int);
void *__enzyme_shadow(void *, void *, int);
void __enzyme_zero_shadows(void *);
#ifdef __cplusplus
}
#endif

enum { N = 6 };
static double *a;        // queried in a context
static double *scratch;  // never queried: an internal shadow

__attribute__((noinline)) static void allocate(int n, double base) {
  free(a);
  a = (double *)calloc(n, sizeof(double));
  for (int i = 0; i < n; ++i)
    a[i] = base + 0.5 * i;
}
__attribute__((noinline)) static void allocate_scratch(void) {
  scratch = (double *)aligned_alloc(64, 64 * sizeof(double));
  for (int i = 0; i < 64; ++i)
    scratch[i] = 0.1 * i;
}

static double f(double x) {
  double s = 0;
  for (int i = 0; i < N; ++i)
    s += (i + 1) * a[i] * a[i] * x;
  return s + a[0] * sin(x);
}
static double f_fd(double x, void *c) {
  (void)c;
  return f(x);
}
static double dfdx(double x) {
  double s = 0;
  for (int i = 0; i < N; ++i)
    s += (i + 1) * a[i] * a[i];
  return s + a[0] * cos(x);
}

// Reads the internal one, and copies its values through memory the derivative also shadows.
static double g(double x) {
  double s = 0;
  for (int i = 0; i < 64; ++i) {
    scratch[i] = scratch[i] * x;
    s += scratch[i] * scratch[i];
  }
  return s;
}

int main(void) {
  allocate(N, 1.0);
  void *ctx = __enzyme_context(1);
  double **da = (double **)__enzyme_shadow(ctx, &a, 0);
  CHECK_TRUE(*da != 0 && *da != a, "the shadow is a block of its own");
  for (int round = 0; round < 2; ++round) {
    double x = 0.4 + round;
    __enzyme_zero_shadows(ctx);
    double d = __enzyme_autodiff((void *)f, enzyme_context, ctx, x);
    CHECK_CLOSE(d, dfdx(x), 1e-14, "df/dx, round %d", round);
    CHECK_CLOSE(d, check_fd(f_fd, 0, x), 1e-8, "df/dx vs FD, round %d", round);
    for (int i = 0; i < N; ++i)
      CHECK_CLOSE((*da)[i], 2 * (i + 1) * a[i] * x + (i == 0 ? sin(x) : 0.0), 1e-14, "df/da[%d], round %d", i,
                  round);
  }
  // Forward mode: the tangent along the direction seeded in the shadow block.
  __enzyme_zero_shadows(ctx);
  (*da)[2] = 1.0;
  double t = __enzyme_fwddiff((void *)f, enzyme_context, ctx, 0.4, 0.0);
  CHECK_CLOSE(t, 2 * 3 * a[2] * 0.4, 1e-14, "forward: tangent along a[2]");

  // A new block: the shadow follows it.
  double *old = *da;
  allocate(N, -2.0);
  __enzyme_zero_shadows(ctx);
  double d = __enzyme_autodiff((void *)f, enzyme_context, ctx, 1.3);
  CHECK_CLOSE(d, dfdx(1.3), 1e-14, "df/dx after reallocation");
  CHECK_TRUE(*da != old, "a new shadow block for the new block");
  CHECK_CLOSE((*da)[N - 1], 2 * N * a[N - 1] * 1.3, 1e-14, "df/da[N-1] after reallocation");

  // Context-free: the internal shadow starts at zero at each call.
  allocate_scratch();
  for (int round = 0; round < 2; ++round) {
    double x = 1.1;
    for (int i = 0; i < 64; ++i)
      scratch[i] = 0.1 * i;
    double want = 0;
    for (int i = 0; i < 64; ++i)
      want += 2 * (0.1 * i) * (0.1 * i) * x;
    double dg = __enzyme_autodiff((void *)g, x);
    CHECK_CLOSE(dg, want, 1e-13, "context-free heap global, call %d", round);
  }
  free(a);
  free(scratch);
  return check_report();
}
