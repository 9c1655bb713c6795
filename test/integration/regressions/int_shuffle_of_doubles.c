// SSE2 broadcasts a double lane with `_mm_shuffle_epi32` on its bits (Eigen's vec2d_swizzle1,
// used by the GEMM kernel's pbroadcast4): a shufflevector of <4 x i32> moving whole pairs of i32
// lanes. Reverse mode used to drop its adjoint silently (the lanes were narrower than the double
// they carry); now the mask is restated in double lanes. Forward and reverse agree with the
// analytic derivative. A mask that splits a double is refused (lit/diagnostics/int_shuffle_split.c).
// REQUIRES: x86_64
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t2x -lm && %t2x
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
#include "check.h"
#include <emmintrin.h>

static double f(const double *a) {
  __m128d v = _mm_loadu_pd(a);
  __m128d hi = _mm_castsi128_pd(_mm_shuffle_epi32(_mm_castpd_si128(v), 0xEE)); // (a1, a1)
  __m128d lo = _mm_castsi128_pd(_mm_shuffle_epi32(_mm_castpd_si128(v), 0x44)); // (a0, a0)
  __m128d t = _mm_mul_pd(_mm_mul_pd(hi, v), lo);                                // (a0 a1 a0, a1 a1 a0)
  double r[2];
  _mm_storeu_pd(r, t);
  return r[0] + 2 * r[1];
}

int main(void) {
  double a[2] = {3, 5}, g[2] = {0, 0};
  __enzyme_autodiff((void *)f, enzyme_dup, a, g);
  // f = a0^2 a1 + 2 a0 a1^2
  double d0 = 2 * a[0] * a[1] + 2 * a[1] * a[1], d1 = a[0] * a[0] + 4 * a[0] * a[1];
  CHECK_CLOSE(g[0], d0, 1e-12, "reverse d/da0");
  CHECK_CLOSE(g[1], d1, 1e-12, "reverse d/da1");
  double e0[2] = {1, 0}, e1[2] = {0, 1};
  CHECK_CLOSE(__enzyme_fwddiff((void *)f, enzyme_dup, a, e0), d0, 1e-12, "forward d/da0");
  CHECK_CLOSE(__enzyme_fwddiff((void *)f, enzyme_dup, a, e1), d1, 1e-12, "forward d/da1");
  return check_report();
}
