// User allocators that carve doubles out of untyped static storage: a bump allocator over a
// `static unsigned char pool[]`, and an arena held in a struct with its own counter. The storage
// needs a shadow like any global holding floats; before, it was refused ("global 'pool', which
// has no shadow"). Gradients against central differences, forward against reverse.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
#include "check.h"
#include <stddef.h>

#define N 6

static _Alignas(64) unsigned char pool[1 << 14];
static size_t pool_top;
static void *pool_alloc(size_t n) {
  void *p = pool + pool_top;
  pool_top += (n + 63) & ~(size_t)63;
  return p;
}

static struct {
  size_t top;
  _Alignas(16) unsigned char bytes[4096];
} arena;
static double *arena_doubles(size_t n) {
  double *p = (double *)(arena.bytes + arena.top);
  arena.top += n * sizeof(double);
  return p;
}

static double pooled(const double *x, int n) {
  double *a = (double *)pool_alloc(n * sizeof(double)), *b = (double *)pool_alloc(n * sizeof(double));
  for (int i = 0; i < n; i++) {
    a[i] = x[i] * x[i];
    b[i] = cos(x[i]);
  }
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * b[(i + 1) % n];
  pool_top = 0;
  return s;
}

static double in_arena(const double *x, int n) {
  double *u = arena_doubles(n), *v = arena_doubles(n);
  for (int i = 0; i < n; i++)
    u[i] = exp(0.5 * x[i]);
  for (int k = 0; k < 3; k++) /* overwrite in place: the tape must keep what the adjoint needs */
    for (int i = 0; i < n; i++)
      v[i] = u[i] * u[(i + 1) % n], u[i] = sin(v[i]) + x[i];
  double s = 0;
  for (int i = 0; i < n; i++)
    s += u[i] * v[i];
  arena.top = 0;
  return s;
}

typedef double (*Objective)(const double *, int);
static double fd_of(Objective f, const double *x, int i) {
  double xp[N], xm[N], h = 1e-6;
  memcpy(xp, x, sizeof xp);
  memcpy(xm, x, sizeof xm);
  xp[i] += h;
  xm[i] -= h;
  return (f(xp, N) - f(xm, N)) / (2 * h);
}

int main(void) {
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = 0.3 + 0.13 * i;
  double g1[N] = {0}, g2[N] = {0};
  __enzyme_autodiff((void *)pooled, enzyme_dup, x, g1, enzyme_const, N);
  __enzyme_autodiff((void *)in_arena, enzyme_dup, x, g2, enzyme_const, N);
  CHECK_TRUE(pool_top == 0 && arena.top == 0, "allocators reset by the derivative's primal sweep");
  for (int i = 0; i < N; i++) {
    double v[N] = {0};
    v[i] = 1;
    CHECK_CLOSE(g1[i], fd_of(pooled, x, i), 1e-7, "pool: reverse d/dx%d", i);
    CHECK_CLOSE(g2[i], fd_of(in_arena, x, i), 1e-7, "arena: reverse d/dx%d", i);
    CHECK_CLOSE(__enzyme_fwddiff((void *)pooled, enzyme_dup, x, v, enzyme_const, N), g1[i], 1e-12,
                "pool: forward = reverse d/dx%d", i);
    CHECK_CLOSE(__enzyme_fwddiff((void *)in_arena, enzyme_dup, x, v, enzyme_const, N), g2[i], 1e-12,
                "arena: forward = reverse d/dx%d", i);
  }
  return check_report();
}
