// Negation and absolute value written on a double's bits: memcpy to uint64_t and xor / and /
// or with the sign mask (libraries that avoid libm), and SSE2's _mm_xor_pd / _mm_and_pd with
// -0.0 masks (Eigen's pnegate, pabs, quat_conj). On values read from memory these gave a silent
// zero derivative in both modes: the integer masks were not seen as fneg / fabs. Gradients
// against closed forms and central differences, forward mode against reverse.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
#include "check.h"
#include <emmintrin.h>
#include <stdint.h>

static double bit_neg(double s) {
  uint64_t u;
  memcpy(&u, &s, 8);
  u ^= 0x8000000000000000ull;
  memcpy(&s, &u, 8);
  return s;
}
static double bit_abs(double s) {
  uint64_t u;
  memcpy(&u, &s, 8);
  u &= 0x7fffffffffffffffull;
  memcpy(&s, &u, 8);
  return s;
}
static double bit_negabs(double s) {
  uint64_t u;
  memcpy(&u, &s, 8);
  u |= 0x8000000000000000ull;
  memcpy(&s, &u, 8);
  return s;
}
static float bit_negf(float s) {
  uint32_t u;
  memcpy(&u, &s, 4);
  u ^= 0x80000000u;
  memcpy(&s, &u, 4);
  return s;
}

#define N 6

// Through memory: every value is read from x, and the results are combined nonlinearly.
static double through_memory(const double *x, int n) {
  double s = 0;
  for (int i = 0; i + 2 < n; i += 3)
    s += bit_neg(x[i]) * x[i + 1] + bit_abs(x[i + 1]) * bit_abs(x[i + 1]) + sin(bit_negabs(x[i + 2]));
  return s;
}

// SSE2 packets: lane 0 negated, both lanes' magnitudes, then a horizontal combination.
static double packets(const double *x, int n) {
  const __m128d neg0 = _mm_castsi128_pd(_mm_setr_epi32(0, (int)0x80000000, 0, 0));
  const __m128d absmask = _mm_castsi128_pd(_mm_set1_epi64x(0x7fffffffffffffffll));
  double s = 0;
  for (int i = 0; i + 3 < n; i += 4) {
    __m128d a = _mm_loadu_pd(x + i), b = _mm_loadu_pd(x + i + 2);
    __m128d v = _mm_add_pd(_mm_mul_pd(a, a), _mm_xor_pd(neg0, b));
    __m128d w = _mm_and_pd(absmask, _mm_mul_pd(a, b));
    double o[2], p[2];
    _mm_storeu_pd(o, v);
    _mm_storeu_pd(p, w);
    s += o[0] * o[1] + p[0] + 2 * p[1];
  }
  return s;
}

typedef double (*fn)(const double *, int);
static double fd_of(const double *x, void *f) { return ((fn)f)(x, N); }

static void check(fn f, const char *name) {
  double x[N], dx[N] = {0}, g[N], v[N];
  check_fill(x, N, -1, 1);
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N);
  check_fd_grad(fd_of, (void *)f, x, N, g);
  for (int k = 0; k < N; k++)
    CHECK_CLOSE(dx[k], g[k], 1e-6, "%s: reverse d/dx%d vs FD", name, k);
  check_fill(v, N, -1, 1);
  double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, v, enzyme_const, N);
  CHECK_CLOSE(t, check_dot(g, v, N), 1e-6, "%s: forward vs FD", name);
  CHECK_CLOSE(t, check_dot(dx, v, N), 1e-12, "%s: forward vs reverse", name);
}

static double by_value(double x) { return 5 * bit_neg(x) + 3 * bit_abs(x) + bit_negabs(x) * x; }
static float by_value_f(const float *x) { return 4 * bit_negf(x[0]) * x[1]; }

int main(void) {
  check_seed(3);
  check(through_memory, "sign bits through memory");
  check(packets, "SSE2 sign masks");
  double x = -2.0;
  CHECK_CLOSE(__enzyme_autodiff((void *)by_value, x), -5 - 3 - 2 * fabs(x), 1e-15, "by value, closed form");
  CHECK_CLOSE(__enzyme_fwddiff((void *)by_value, x, 1.0), -5 - 3 - 2 * fabs(x), 1e-15, "by value, forward");
  float xf[2] = {1.5f, -0.25f}, dxf[2] = {0, 0};
  __enzyme_autodiff((void *)by_value_f, enzyme_dup, xf, dxf);
  CHECK_CLOSE(dxf[0], -4 * xf[1], 1e-7, "float, d/dx0");
  CHECK_CLOSE(dxf[1], -4 * xf[0], 1e-7, "float, d/dx1");
  return check_report();
}
