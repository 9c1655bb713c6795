// x86 float intrinsics used for an integration test's float data: hadd/hsub, addsub, dp, blendv,
// max/min, sqrt, and rsqrt/rcp refined by one Newton step, written with <immintrin.h>.
// Doubles against central finite differences; floats against the derivative of the same function
// written out in double (exact 1/sqrt, 1/x). Both modes must agree.
// REQUIRES: x86_64
// RUN: %synthase-cc -O0 -mavx2 -mfma -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -mavx2 -mfma -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -mavx2 -mfma -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -mavx2 -mfma -I%inputs %s -o %t4 -lm && %t4
#include "check.h"
#include <immintrin.h>
#define N 16
/* hadd, max, sqrt, blendv on doubles; dp, rsqrt (Newton-refined), rcp (refined), hsub, addsub, min on floats */
static double fd(const double *x) {
  __m256d a = _mm256_loadu_pd(x), b = _mm256_loadu_pd(x + 4);
  __m256d h = _mm256_hadd_pd(a, b);
  __m256d hs = _mm256_hsub_pd(b, a);
  __m256d m = _mm256_max_pd(a, b);
  __m256d mi = _mm256_min_pd(a, b);
  __m256d s = _mm256_sqrt_pd(_mm256_mul_pd(m, m));
  __m256d bl = _mm256_blendv_pd(a, b, _mm256_sub_pd(a, b));
  __m256d as = _mm256_addsub_pd(a, _mm256_mul_pd(b, b));
  __m128d c = _mm_loadu_pd(x + 8), d = _mm_loadu_pd(x + 10);
  __m128d dd = _mm_dp_pd(c, d, 0x31);
  __m256d t = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(h, h), s), _mm256_mul_pd(bl, _mm256_add_pd(as, _mm256_mul_pd(hs, mi))));
  double o[4], q[2];
  _mm256_storeu_pd(o, t);
  _mm_storeu_pd(q, dd);
  return o[0] + 2 * o[1] + 3 * o[2] + 4 * o[3] + 5 * q[0] + q[1];
}
static float ff(const float *x) {
  __m128 p = _mm_loadu_ps(x), q = _mm_loadu_ps(x + 4);
  __m128 d = _mm_dp_ps(p, q, 0xF3);
  __m128 pp = _mm_mul_ps(p, p);
  __m128 r = _mm_rsqrt_ps(pp); /* one Newton step: r (1.5 - 0.5 x r²) */
  r = _mm_mul_ps(r, _mm_sub_ps(_mm_set1_ps(1.5f), _mm_mul_ps(_mm_mul_ps(_mm_mul_ps(_mm_set1_ps(0.5f), pp), r), r)));
  __m128 rc = _mm_rcp_ps(q); /* one Newton step: rc (2 - x rc) */
  rc = _mm_mul_ps(rc, _mm_sub_ps(_mm_set1_ps(2.0f), _mm_mul_ps(q, rc)));
  __m256 a = _mm256_loadu_ps(x + 8);
  __m256 h = _mm256_hadd_ps(a, _mm256_mul_ps(a, a));
  __m256 hm = _mm256_max_ps(a, _mm256_permute_ps(a, 0x1b));
  __m256 dp8 = _mm256_dp_ps(a, hm, 0x71);
  __m128 lo = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(dp8, 1));
  __m128 t = _mm_add_ps(_mm_add_ps(d, _mm_mul_ps(r, q)), _mm_add_ps(_mm_mul_ps(rc, p), lo));
  float o[4];
  _mm_storeu_ps(o, t);
  return o[0] + 2 * o[1] + 3 * o[2] + 4 * o[3];
}
static double fdw(const double *x, void *c) { (void)c; return fd(x); }
/* ff written out in double with exact 1/sqrt and 1/x: the reference for the float derivatives */
static double ffw(const double *x, void *c) {
  (void)c;
  const double *p = x, *q = x + 4, *a = x + 8;
  double dot = 0, t[4], h[8], hm[8], dp8 = 0;
  for (int i = 0; i < 4; i++) dot += p[i] * q[i];
  for (int b = 0; b < 8; b += 4) {
    h[b] = a[b] + a[b + 1], h[b + 1] = a[b + 2] + a[b + 3];
    h[b + 2] = a[b] * a[b] + a[b + 1] * a[b + 1], h[b + 3] = a[b + 2] * a[b + 2] + a[b + 3] * a[b + 3];
    for (int i = 0; i < 4; i++) hm[b + i] = a[b + i] > a[b + 3 - i] ? a[b + i] : a[b + 3 - i];
  }
  for (int i = 4; i < 7; i++) dp8 += a[i] * hm[i];
  for (int i = 0; i < 4; i++)
    t[i] = (i < 2 ? dot : 0) + q[i] / sqrt(p[i] * p[i]) + p[i] / q[i] + h[i] + (i == 0 ? dp8 : 0);
  return t[0] + 2 * t[1] + 3 * t[2] + 4 * t[3];
}
int main(void) {
  double x[N], dx[N] = {0}, want[N];
  check_seed(11);
  for (int i = 0; i < N; i++) x[i] = check_uniform(0.5, 2.0) * (i % 3 ? 1 : -1);
  __enzyme_autodiff((void *)fd, x, dx);
  check_fd_grad(fdw, 0, x, 12, want);
  for (int i = 0; i < 12; i++) {
    double v[N] = {0};
    v[i] = 1;
    double t = __enzyme_fwddiff((void *)fd, x, v);
    CHECK_CLOSE(dx[i], want[i], 1e-6, "double intrinsics: reverse d/dx[%d]", i);
    CHECK_CLOSE(t, dx[i], 1e-12, "double intrinsics: forward d/dx[%d]", i);
  }
  float xf[N], dxf[N] = {0};
  for (int i = 0; i < N; i++) {
    x[i] = fabs(x[i]);
    xf[i] = (float)x[i];
  }
  __enzyme_autodiff((void *)ff, xf, dxf);
  check_fd_grad(ffw, 0, x, N, want);
  for (int i = 0; i < N; i++) {
    float v[N] = {0};
    v[i] = 1;
    double t = __enzyme_fwddiff((void *)ff, xf, v);
    CHECK_CLOSE(dxf[i], want[i], 1e-4, "float intrinsics: reverse d/dx[%d]", i);
    CHECK_CLOSE(t, dxf[i], 1e-5, "float intrinsics: forward d/dx[%d]", i);
  }
  return check_report();
}
