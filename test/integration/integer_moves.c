// Float data moved as integers (issue 12): a one-element memcpy becomes `load i64`/`store i64`,
// and hand-written swaps and copies move doubles through uint64_t. The moved bytes carry their
// derivative in both modes: forward mode moves the shadow's bytes, reverse mode gives the integer
// an adjoint of the float type the memory holds. Before, both modes returned zero derivatives.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
// RUN: %synthase-cc -O2 -flto -fuse-ld=lld -I%inputs %s -o %t5 -lm && %t5
#include "check.h"
#include <stdint.h>

#define N 6

static void move8(void *d, const void *s) {
  uint64_t v;
  memcpy(&v, s, 8);
  memcpy(d, &v, 8);
}

/* reversed copy through uint64_t, a swap through uint64_t, an insertion sort moving i64s */
static double moves(double *x, int n) {
  double *t = (double *)malloc(sizeof(double) * n);
  for (int i = 0; i < n; i++)
    move8(&t[n - 1 - i], &x[i]);
  uint64_t a;
  memcpy(&a, &t[0], 8);
  memcpy(&t[0], &t[1], 8);
  memcpy(&t[1], &a, 8);
  for (int i = 1; i < n; i++) { /* sort by value, moving bits */
    uint64_t key;
    memcpy(&key, &t[i], 8);
    double kv = t[i];
    int j = i - 1;
    while (j >= 0 && t[j] > kv) {
      move8(&t[j + 1], &t[j]);
      j--;
    }
    memcpy(&t[j + 1], &key, 8);
  }
  double s = 0;
  for (int i = 0; i < n; i++)
    s += t[i] * t[i] * (i + 1) + sin(t[i]);
  free(t);
  return s;
}
static double moves_fd(const double *x, void *ctx) {
  (void)ctx;
  double y[N];
  memcpy(y, x, sizeof y);
  return moves(y, N);
}

/* floats moved as uint32_t into an output buffer */
static void fmoves(const float *x, float *y, int n) {
  for (int i = 0; i < n; i++) {
    uint32_t b;
    memcpy(&b, &x[n - 1 - i], 4);
    memcpy(&y[i], &b, 4);
  }
  for (int i = 0; i < n; i++)
    y[i] = y[i] * y[i];
}

int main(void) {
  double x[N], g[N] = {0}, fd[N];
  check_fill(x, N, -2, 2);
  __enzyme_autodiff((void *)moves, enzyme_dup, x, g, enzyme_const, N);
  check_fd_grad(moves_fd, 0, x, N, fd);
  for (int i = 0; i < N; i++) {
    CHECK_CLOSE(g[i], fd[i], 1e-8, "moves reverse d/dx[%d]", i);
    double e[N] = {0};
    e[i] = 1;
    double t = __enzyme_fwddiff((void *)moves, enzyme_dup, x, e, enzyme_const, N);
    CHECK_CLOSE(t, g[i], 1e-12, "moves forward vs reverse [%d]", i);
  }

  float fx[N], fy[N], dfx[N] = {0}, dfy[N];
  for (int i = 0; i < N; i++)
    fx[i] = 0.5f + 0.25f * i;
  for (int i = 0; i < N; i++)
    dfy[i] = (float)(i + 1); /* seed: d loss/dy_i = i+1 */
  __enzyme_autodiff((void *)fmoves, enzyme_dup, fx, dfx, enzyme_dup, fy, dfy, enzyme_const, N);
  for (int i = 0; i < N; i++) {
    /* y_i = x_{n-1-i}^2, so dL/dx_j = 2 x_j (n - j) */
    CHECK_CLOSE(dfx[i], 2.0 * fx[i] * (N - i), 1e-6, "fmoves reverse d/dx[%d]", i);
    float e[N] = {0}, ty[N];
    e[i] = 1;
    __enzyme_fwddiff((void *)fmoves, enzyme_dup, fx, e, enzyme_dup, fy, ty, enzyme_const, N);
    CHECK_CLOSE(ty[N - 1 - i], 2.0 * fx[i], 1e-6, "fmoves forward dy[%d]/dx[%d]", N - 1 - i, i);
  }
  return check_report();
}
