// Addresses of active data kept as integers (uintptr_t tables on the stack, on the heap, filled by
// an out-of-line callee, a field next to a double, addresses of a global) and pointers rebuilt
// from integer arithmetic (base + 8 i, __builtin_align_down, i.e. llvm.ptrmask): the memory they
// point to keeps its derivative. These were silent zeros (reverse mode left integer tables without
// a shadow; offsets other than constants and llvm.ptrmask had no shadow in either mode).
// Gradients against central differences, forward mode against reverse.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
// RUN: env SYNTHASE_INLINE_CALLEE_LIMIT=1 %synthase-cc -O2 -I%inputs %s -o %t4 -lm && %t4
#include "check.h"
#include <stdint.h>
#include <stdlib.h>

enum { N = 6 };
static double G[N]; // filled from x: a global with a shadow

static double stack_table(const double *x, int n) {
  uintptr_t slot[N];
  for (int i = 0; i < n; i++)
    slot[i] = (uintptr_t)&x[(i + 1) % n];
  double s = 0;
  for (int i = 0; i < n; i++) {
    double v = *(const double *)slot[i];
    s += v * v * (i + 1);
  }
  return s;
}

static double heap_table(const double *x, int n) {
  intptr_t *t = malloc(sizeof(intptr_t) * n);
  for (int i = 0; i < n; i++)
    t[i] = (intptr_t)(x + n - 1 - i);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += sin(*(const double *)t[i]) * x[i];
  free(t);
  return s;
}

__attribute__((noinline)) static void store_addresses(uintptr_t *t, const double *x, int n) {
  for (int i = 0; i < n; i++)
    t[i] = (uintptr_t)(x + i);
}

static double callee_table(const double *x, int n) {
  uintptr_t t[N];
  store_addresses(t, x, n);
  double s = 0;
  for (int i = 0; i < n; i++) {
    double v = *(const double *)t[i];
    s += exp(0.3 * v) * v;
  }
  return s;
}

struct handle { uintptr_t p; double w; };

static double struct_field(const double *x, int n) {
  struct handle h[N];
  for (int i = 0; i < n; i++) {
    h[i].p = (uintptr_t)(x + i);
    h[i].w = 0.5 + i;
  }
  double s = 0;
  for (int i = 0; i < n; i++)
    s += h[i].w * ((const double *)h[i].p)[0] * x[(i + 2) % n];
  return s;
}

static double global_addresses(const double *x, int n) {
  for (int i = 0; i < n; i++)
    G[i] = x[i] * x[i];
  uintptr_t t[N];
  for (int i = 0; i < n; i++)
    t[i] = (uintptr_t)&G[i];
  double s = 0;
  for (int i = 0; i < n; i++)
    s += *(const double *)t[i] * cos(x[i]);
  return s;
}

static double integer_offsets(const double *x, int n) {
  uintptr_t base = (uintptr_t)x;
  double s = 0;
  for (int i = 0; i < n; i++) {
    const double *p = (const double *)(base + sizeof(double) * (uintptr_t)i);
    s += p[0] * p[0] * p[0];
  }
  return s;
}

static double aligned_down(const double *x, int n) {
  const double *b = __builtin_align_down(x, sizeof(double)); // x is aligned: the same address
  double s = 0;
  for (int i = 0; i < n; i++)
    s += b[i] * x[(i + 1) % n];
  return s;
}

int main(void) {
  check_seed(71);
  check_gradient_n(stack_table, N, "uintptr_t table on the stack", 1e-6);
  check_gradient_n(heap_table, N, "intptr_t table on the heap", 1e-6);
  check_gradient_n(callee_table, N, "table filled by a callee", 1e-6);
  check_gradient_n(struct_field, N, "address field beside a double", 1e-6);
  check_gradient_n(global_addresses, N, "addresses of a global", 1e-6);
  check_gradient_n(integer_offsets, N, "base + 8 i as integers", 1e-6);
  check_gradient_n(aligned_down, N, "__builtin_align_down", 1e-6);
  return check_report();
}
