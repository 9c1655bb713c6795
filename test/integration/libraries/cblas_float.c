// Single-precision CBLAS calls (cblas_sdot, snrm2, saxpy, sscal, sgemv, sgemm) in differentiated
// code, from the same runtime as the double ones (runtime/blas/Routines.inc, built for both).
// The float function's gradient is checked against the gradient of the same computation in
// double precision (its float rounding is the only difference: tolerance 1e-4), and forward
// mode against reverse on the float function.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lblas -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lblas -lm && %t2
#include "check.h"
#include <cblas.h>
#include <math.h>
#include <string.h>

enum { N = 12 };

#define BODY(R, P)                                                                                  \
  R a[N], b[N], m[6];                                                                               \
  for (int i = 0; i < N; i++)                                                                       \
    a[i] = (R)x[i], b[i] = (R)sin(x[(i + 5) % N]);                                                  \
  R s = P##dot(6, a, 2, b, 1) + P##nrm2(N, b, 1);                                                   \
  P##axpy(N, a[0], b, 1, a, 1);                                                                     \
  P##scal(6, a[1], a + 3, 1);                                                                       \
  /* m (2x3) = 0.5 a(2x4) b(4x3) + a[2] m0 */                                                       \
  for (int i = 0; i < 6; i++)                                                                       \
    m[i] = b[i] * b[i];                                                                             \
  P##gemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 3, 4, 0.5f, a, 4, b, 3, a[2], m, 3);        \
  P##gemv(CblasColMajor, CblasTrans, 4, 2, a[5], a + 4, 4, b, 1, 0.25f, m, 2);                      \
  for (int i = 0; i < 6; i++)                                                                       \
    s += m[i] * m[i] * (R)(i + 1);                                                                  \
  return s;

static float f_float(const float *x) { BODY(float, cblas_s) }
static double f_double(const double *x) { BODY(double, cblas_d) }

int main(void) {
  float xf[N], dxf[N], tf[N];
  double xd[N], dxd[N];
  for (int i = 0; i < N; i++)
    xd[i] = 0.3 + 0.05 * i - 0.02 * (i % 3), xf[i] = (float)xd[i];
  memset(dxf, 0, sizeof dxf);
  memset(dxd, 0, sizeof dxd);
  __enzyme_autodiff((void *)f_float, xf, dxf);
  __enzyme_autodiff((void *)f_double, xd, dxd);
  double jv = 0;
  for (int i = 0; i < N; i++) {
    CHECK_CLOSE(dxf[i], dxd[i], 1e-4, "float reverse vs double reverse d[%d]", i);
    tf[i] = (float)(0.1 * (i % 4) - 0.15);
    jv += dxf[i] * tf[i];
  }
  CHECK_CLOSE(__enzyme_fwddiff((void *)f_float, xf, tf), jv, 1e-4, "float forward vs reverse");
  return check_report();
}
