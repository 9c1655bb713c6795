// The gradient of a ridge-regression loss written with CBLAS, differentiated by Synthase.
//
//   loss(W) = |X W - Y|^2 / 2 + lambda |W|^2 / 2      X: n x d data, W: d x k weights
//
// The residual is one cblas_dgemm, the penalty a cblas_ddot; the gradient X^T (X W - Y) + lambda W
// comes out of the dgemm's reverse (itself a dgemm) without writing it by hand. The program checks
// it against that formula and exits non-zero on a mismatch.
//
// Build: synthase-cc -O2 ridge.c -o ridge -lblas -lm
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

enum { N = 40, D = 6, K = 3 };

static double loss(const double *w, const double *x, const double *y, double lambda) {
  double r[N * K];
  memcpy(r, y, sizeof r);
  /* r = X W - Y */
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, K, D, 1.0, x, D, w, K, -1.0, r, K);
  return 0.5 * cblas_ddot(N * K, r, 1, r, 1) + 0.5 * lambda * cblas_ddot(D * K, w, 1, w, 1);
}

int main(void) {
  static double x[N * D], y[N * K], w[D * K], dw[D * K], r[N * K], want[D * K];
  unsigned s = 12345;
  for (int i = 0; i < N * D; i++)
    x[i] = (s = s * 1103515245u + 12345u, (s >> 8) % 2000 / 1000.0 - 1.0);
  for (int i = 0; i < N * K; i++)
    y[i] = sin(0.1 * i);
  for (int i = 0; i < D * K; i++)
    w[i] = 0.05 * i - 0.3;
  double lambda = 0.1;
  __enzyme_autodiff((void *)loss, enzyme_dup, w, dw, enzyme_const, x, enzyme_const, y, lambda);

  /* The hand-written gradient: X^T (X W - Y) + lambda W. */
  memcpy(r, y, sizeof r);
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, K, D, 1.0, x, D, w, K, -1.0, r, K);
  memcpy(want, w, sizeof want);
  cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, D, K, N, 1.0, x, D, r, K, lambda, want, K);
  double err = 0;
  for (int i = 0; i < D * K; i++)
    err = fmax(err, fabs(dw[i] - want[i]) / fmax(1.0, fabs(want[i])));
  printf("ridge loss %.6f, gradient max relative error %.2e\n", loss(w, x, y, lambda), err);
  return err < 1e-12 ? 0 : 1;
}
