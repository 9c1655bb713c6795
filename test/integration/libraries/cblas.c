// CBLAS calls inside differentiated code (Debian's libblas-dev): ddot, dnrm2, daxpy, dscal,
// dcopy, dswap, dger, dgemv and dgemm (idamax inactive), whose derivatives come from
// libsynthase_blas.a (registered by the plugin as custom derivatives). Both layouts, every
// transpose, leading dimensions wider than the rows, strided and negative increments, active
// alpha and beta, and inputs overwritten after the call (the reverse sweep reads the augmented
// call's copies). Reverse against central differences, forward against both (check_gradient_n).
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lblas -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lblas -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lblas -lm && %t3
// The example examples/blas/ridge.c (a ridge-regression gradient against its formula):
// RUN: %synthase-cc -O2 %S/../../../examples/blas/ridge.c -o %t4 -lblas -lm && %t4
#include "check.h"
#include <cblas.h>
#include <math.h>
#include <string.h>

enum { N = 24 };

/* Level 1: dot products at strides, a norm, axpy and scal with active scalars. */
static double level1(const double *x, int n) {
  (void)n;
  double a[12], b[12];
  memcpy(a, x, sizeof a);
  memcpy(b, x + 12, sizeof b);
  double s = cblas_ddot(6, a, 2, b + 1, 2);      /* odd against even elements */
  s += 0.5 * cblas_ddot(4, a, -3, b, 1);         /* a negative increment */
  s += cblas_dnrm2(12, b, 1);
  cblas_daxpy(6, x[3], a + 1, 2, b, 2);          /* alpha is active */
  cblas_dscal(12, x[5] * 0.7, b, 1);
  s += cblas_ddot(12, b, 1, b, 1);
  double c[6];
  cblas_dcopy(6, b + 5, -1, c, 1);               /* c = b[5..0], reversed */
  cblas_dswap(3, c, 2, a + 2, 1);
  int k = (int)cblas_idamax(6, c, 1);            /* an index: no derivative */
  s += c[k] * 2 + cblas_ddot(6, c, 1, a, 1) + a[3];
  memset(a, 0, sizeof a); /* overwritten after the calls that read it */
  return s + a[0];
}

/* Level 2: y = alpha op(A) x + beta y for both layouts and transposes, A 3x4 with lda 5. */
static double level2(const double *x, int n) {
  (void)n;
  double s = 0;
  for (int layout = 0; layout < 2; layout++)
    for (int t = 0; t < 2; t++) {
      CBLAS_LAYOUT L = layout ? CblasColMajor : CblasRowMajor;
      CBLAS_TRANSPOSE T = t ? CblasTrans : CblasNoTrans;
      int m = 3, k = 4, lda = 5; /* row-major: 3 lines of 4 (ld 5); column-major: 4 lines of 3 */
      double A[20], v[4], y[4];
      for (int i = 0; i < 20; i++)
        A[i] = x[(i * 7 + layout + t) % N];
      for (int i = 0; i < 4; i++)
        v[i] = sin(x[(i + 3 * t) % N]), y[i] = x[(i + 11) % N];
      int ny = t ? k : m;
      cblas_dgemv(L, T, m, k, x[0] + 0.5, A, lda, v, 1, x[1] - 0.2, y, 1);
      cblas_dger(L, m, k, x[6] * 0.3, y, 1, v, 1, A, lda); /* A += alpha y v^T */
      s += A[lda + 1] * A[2] + A[lda];
      for (int i = 0; i < ny; i++)
        s += y[i] * (1.0 + i + 2 * layout + t);
      memset(A, 0, sizeof A);
    }
  return s;
}

/* Level 3: C = alpha op(A) op(B) + beta C, every transpose pair, both layouts, padded lds. */
static double level3(const double *x, int n) {
  (void)n;
  double s = 0;
  for (int layout = 0; layout < 2; layout++)
    for (int ta = 0; ta < 2; ta++)
      for (int tb = 0; tb < 2; tb++) {
        CBLAS_LAYOUT L = layout ? CblasColMajor : CblasRowMajor;
        int m = 2, nn = 3, k = 4;
        /* stored shapes: op(A) is m x k, op(B) is k x nn */
        int ar = ta ? k : m, ac = ta ? m : k, br = tb ? nn : k, bc = tb ? k : nn;
        int lda = (layout ? ar : ac) + 1, ldb = (layout ? br : bc) + 2, ldc = (layout ? m : nn) + 1;
        double A[32], B[32], C[32];
        for (int i = 0; i < 32; i++) {
          A[i] = x[(i * 5 + ta) % N] * 0.5;
          B[i] = cos(x[(i * 3 + tb + 7) % N]);
          C[i] = x[(i + layout) % N];
        }
        (void)ar, (void)ac, (void)br, (void)bc;
        cblas_dgemm(L, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, nn, k, x[2] * 0.8, A,
                    lda, B, ldb, x[4] + 0.3, C, ldc);
        for (int i = 0; i < m; i++)
          for (int j = 0; j < nn; j++) {
            double c = layout ? C[j * ldc + i] : C[i * ldc + j];
            s += c * c * (1.0 + 0.1 * (i + 2 * j) + layout + 0.5 * ta + 0.25 * tb);
          }
        memset(B, 0, sizeof B);
      }
  return s;
}

int main(void) {
  check_gradient_n(level1, N, "cblas level 1", 1e-6);
  check_gradient_n(level2, N, "cblas level 2", 1e-6);
  check_gradient_n(level3, N, "cblas level 3", 1e-6);
  return check_report();
}
