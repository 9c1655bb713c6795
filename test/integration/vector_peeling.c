// Loops peeled to a vector boundary of the primal's address, then aligned vector moves
// (`_mm_load_pd`, `_mm256_load_pd`), as Eigen does on a Matrix3d or an unaligned Map: the
// derivative mirrors those moves onto shadows, which need not sit at the same offset from the
// boundary (a caller's shadow, a local's or a heap block's shadow). Before, the aligned move on
// the shadow faulted (SIGSEGV) in both modes; generated code now moves vectors at their
// elements' alignment (Engine/ShadowAlignment.cpp).
// Reverse mode against the analytic gradient, forward mode against reverse.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
#include "check.h"
#include <immintrin.h>
#include <stdint.h>
#include <stdlib.h>

static double sumsq_sse(const double *a, int n) {
  int i = 0;
  double s = 0;
  for (; i < n && ((uintptr_t)(a + i) & 15); i++) s += a[i] * a[i];
  __m128d acc = _mm_setzero_pd();
  for (; i + 2 <= n; i += 2) {
    __m128d v = _mm_load_pd(a + i);
    acc = _mm_add_pd(acc, _mm_mul_pd(v, v));
  }
  for (; i < n; i++) s += a[i] * a[i];
  double t[2];
  _mm_storeu_pd(t, acc);
  return s + t[0] + t[1];
}

__attribute__((target("avx2"))) static double sumsq_avx(const double *a, int n) {
  int i = 0;
  double s = 0;
  for (; i < n && ((uintptr_t)(a + i) & 31); i++) s += a[i] * a[i];
  __m256d acc = _mm256_setzero_pd();
  for (; i + 4 <= n; i += 4) {
    __m256d v = _mm256_load_pd(a + i);
    acc = _mm256_add_pd(acc, _mm256_mul_pd(v, v));
  }
  for (; i < n; i++) s += a[i] * a[i];
  double t[4];
  _mm256_storeu_pd(t, acc);
  return s + t[0] + t[1] + t[2] + t[3];
}

// The caller's array, at the offset the caller chose.
static double direct(const double *x, int n) { return sumsq_sse(x, n); }

// Locals of 72 bytes (align 8): consecutive ones alternate modulo 16.
typedef struct { double m[9]; } M3;
__attribute__((noinline)) static void fill(M3 *s, const double *x, double c) {
  for (int i = 0; i < 9; i++) s->m[i] = x[i] * c;
}
static double locals(const double *x) {
  M3 a, b, c;
  fill(&a, x, 1);
  fill(&b, x, 2);
  fill(&c, x, 3);
  return sumsq_sse(a.m, 9) + sumsq_sse(b.m, 9) + sumsq_sse(c.m, 9);
}

// Heap blocks made in the call, at 0 or 16 modulo 32.
__attribute__((target("avx2"))) static double heap(const double *x) {
  double s = 0;
  void *keep[4];
  for (int r = 0; r < 4; r++) {
    double *a = malloc(16 * sizeof(double));
    for (int i = 0; i < 16; i++) a[i] = x[i % 9] * (r + 1);
    s += sumsq_avx(a, 16);
    free(a);
    keep[r] = malloc(40 + 16 * r); // shifts the next block
  }
  for (int r = 0; r < 4; r++) free(keep[r]);
  return s;
}

int main(void) {
  double buf[12], dbuf[12];
  for (int off = 0; off < 2; off++) { // the shadow one double off the primal's alignment
    double *x = buf + off, *dx = dbuf + 1 - off;
    for (int i = 0; i < 9; i++) x[i] = 0.5 + 0.25 * i;
    for (int i = 0; i < 9; i++) dx[i] = 0;
    __enzyme_autodiff((void *)direct, enzyme_dup, x, dx, enzyme_const, 9);
    for (int i = 0; i < 9; i++) CHECK_CLOSE(dx[i], 2 * x[i], 1e-12, "direct offset %d d[%d]", off, i);
    for (int i = 0; i < 9; i++) {
      for (int k = 0; k < 9; k++) dx[k] = k == i;
      double t = __enzyme_fwddiff((void *)direct, enzyme_dup, x, dx, enzyme_const, 9);
      CHECK_CLOSE(t, 2 * x[i], 1e-12, "direct forward offset %d [%d]", off, i);
    }
  }
  double x[9], dx[9] = {0};
  for (int i = 0; i < 9; i++) x[i] = 0.5 + 0.25 * i;
  __enzyme_autodiff((void *)locals, enzyme_dup, x, dx);
  for (int i = 0; i < 9; i++) {
    CHECK_CLOSE(dx[i], 2 * x[i] * 14, 1e-12, "locals d[%d]", i);
    double d[9] = {0};
    d[i] = 1;
    CHECK_CLOSE(__enzyme_fwddiff((void *)locals, enzyme_dup, x, d), dx[i], 1e-12, "locals forward [%d]", i);
  }
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2")) {
    double hx[9] = {0};
    __enzyme_autodiff((void *)heap, enzyme_dup, x, hx);
    for (int i = 0; i < 9; i++) {
      // each x[i] appears in 16 slots: twice for i < 7, once more for i = 7, 8 (16 = 9 + 7)
      double uses = i < 7 ? 2 : 1;
      CHECK_CLOSE(hx[i], 2 * x[i] * uses * 30, 1e-12, "heap d[%d]", i);
      double d[9] = {0};
      d[i] = 1;
      CHECK_CLOSE(__enzyme_fwddiff((void *)heap, enzyme_dup, x, d), hx[i], 1e-12, "heap forward [%d]", i);
    }
  }
  return check_report();
}
