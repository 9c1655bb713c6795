// Arrays passed with enzyme_dup: gradients added (+=) into shadows, output arrays whose shadows
// receive tangents (forward, overwritten) or provide the seed (reverse, consumed: the adjoint of
// an overwritten output is zero afterwards), a dense layer, matmul, stencil, log-sum-exp, prefix
// sums, 2-D arrays. Forward vs. FD Jacobian-vector products; dot-product test
// <J v, w> = <v, J^T w> for random v, w on every vector-valued function.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -x c++ -O0 -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
#include "check.h"

#define N 7
#define M 5

static double sumsq(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += x[i] * x[i];
  return s;
}

static double norm2(const double *x, int n) { return sqrt(sumsq(x, n)); }

/* log-sum-exp, numerically stable */
static double lse(const double *x, int n) {
  double mx = x[0];
  for (int i = 1; i < n; ++i)
    if (x[i] > mx)
      mx = x[i];
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += exp(x[i] - mx);
  return mx + log(s);
}

/* y = tanh(W x + b): W (M x N) and b are parameters, x the input */
static void layer(const double *W, const double *b, const double *x, double *y) {
  for (int i = 0; i < M; ++i) {
    double s = b[i];
    for (int j = 0; j < N; ++j)
      s += W[i * N + j] * x[j];
    y[i] = tanh(s);
  }
}

/* C (M x M) = A (M x N) * B (N x M) */
static void matmul(const double *A, const double *B, double *C) {
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < M; ++k) {
      double s = 0;
      for (int j = 0; j < N; ++j)
        s += A[i * N + j] * B[j * M + k];
      C[i * M + k] = s;
    }
}

/* 1-D nonlinear stencil with boundaries, out of place */
static void stencil(const double *x, double *y, int n) {
  for (int i = 0; i < n; ++i) {
    double l = i > 0 ? x[i - 1] : 0.0, r = i + 1 < n ? x[i + 1] : 0.0;
    y[i] = l - 2 * x[i] + r + 0.1 * x[i] * x[i] * x[i];
  }
}

/* prefix sums of squares, reading earlier outputs */
static void prefix(const double *x, double *y, int n) {
  y[0] = x[0] * x[0];
  for (int i = 1; i < n; ++i)
    y[i] = y[i - 1] + x[i] * x[i] * sin(y[i - 1]);
}

/* 2-D array parameter */
static double grid(double (*g)[4], int rows) {
  double s = 0;
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < 4; ++j)
      s += g[i][j] * g[i][(j + 1) % 4] * (i + 1);
  return s;
}

/* FD wrappers */
typedef struct { const double *W, *b; } layer_ctx;
static void layer_x(const double *x, double *y, void *c) {
  layer_ctx *k = (layer_ctx *)c;
  layer(k->W, k->b, x, y);
}
static void stencil_fd(const double *x, double *y, void *c) { (void)c; stencil(x, y, N); }
static void prefix_fd(const double *x, double *y, void *c) { (void)c; prefix(x, y, N); }
static double lse_fd(const double *x, void *c) { (void)c; return lse(x, N); }
static double grid_fd(const double *x, void *c) { return grid((double (*)[4])x, *(int *)c); }

int main(void) {
  check_seed(19);
  for (int t = 0; t < 4; ++t) {
    double x[N], dx[N], v[N], w[M], g[N];
    check_fill(x, N, -1, 1);

    /* sumsq: gradient 2x, added into dx */
    for (int i = 0; i < N; ++i)
      dx[i] = 0.5 * i;
    double r = __enzyme_autodiff((void *)sumsq, x, dx, N);
    (void)r;
    for (int i = 0; i < N; ++i)
      CHECK_CLOSE(dx[i], 0.5 * i + 2 * x[i], 1e-15, "sumsq dx[%d] (+=)", i);
    /* twice more: accumulates */
    __enzyme_autodiff((void *)sumsq, enzyme_dup, x, dx, enzyme_const, N);
    __enzyme_autodiff((void *)sumsq, enzyme_dup, x, dx, enzyme_const, N);
    for (int i = 0; i < N; ++i)
      CHECK_CLOSE(dx[i], 0.5 * i + 6 * x[i], 1e-15, "sumsq dx[%d] after three calls", i);
    /* only the first 3 entries */
    memset(dx, 0, sizeof dx);
    __enzyme_autodiff((void *)sumsq, x, dx, 3);
    for (int i = 0; i < N; ++i)
      CHECK_CLOSE(dx[i], i < 3 ? 2 * x[i] : 0.0, 1e-15, "sumsq n=3 dx[%d]", i);

    /* norm2 */
    memset(dx, 0, sizeof dx);
    __enzyme_autodiff((void *)norm2, x, dx, N);
    double nrm = norm2(x, N);
    check_fill(v, N, -1, 1);
    for (int i = 0; i < N; ++i)
      CHECK_CLOSE(dx[i], x[i] / nrm, 1e-14, "norm2 dx[%d]", i);
    CHECK_CLOSE(__enzyme_fwddiff((void *)norm2, x, v, N), check_dot(x, v, N) / nrm, 1e-14, "fwd norm2");

    /* log-sum-exp: softmax */
    memset(dx, 0, sizeof dx);
    __enzyme_autodiff((void *)lse, x, dx, N);
    double l = lse(x, N);
    check_fd_grad(lse_fd, 0, x, N, g);
    for (int i = 0; i < N; ++i) {
      CHECK_CLOSE(dx[i], exp(x[i] - l), 1e-14, "lse dx[%d]", i);
      CHECK_CLOSE(g[i], exp(x[i] - l), 1e-7, "ref lse fd[%d]", i);
    }
    CHECK_CLOSE(__enzyme_fwddiff((void *)lse, x, v, N), check_dot(dx, v, N), 1e-14, "fwd lse");

    /* dense layer: x active, W and b const */
    double W[M * N], b[M], y[M], dy[M], jv[M], fdjv[M];
    check_fill(W, M * N, -1, 1);
    check_fill(b, M, -0.5, 0.5);
    for (int i = 0; i < M; ++i)
      dy[i] = 99.0; /* overwritten by the forward tangents */
    __enzyme_fwddiff((void *)layer, enzyme_const, W, enzyme_const, b, enzyme_dup, x, v, enzyme_dup, y, dy);
    layer_ctx lc = {W, b};
    check_fd_jvp(layer_x, &lc, x, N, v, M, fdjv);
    for (int i = 0; i < M; ++i) {
      CHECK_CLOSE(dy[i], fdjv[i], 1e-7, "fwd layer Jv[%d] vs FD", i);
      jv[i] = dy[i];
    }
    double yref[M];
    layer(W, b, x, yref);
    for (int i = 0; i < M; ++i)
      CHECK_CLOSE(y[i], yref[i], 1e-15, "fwd layer primal y[%d]", i);
    check_fill(w, M, -1, 1);
    memcpy(dy, w, sizeof w);
    memset(dx, 0, sizeof dx);
    __enzyme_autodiff((void *)layer, enzyme_const, W, enzyme_const, b, enzyme_dup, x, dx, enzyme_dup, y, dy);
    CHECK_CLOSE(check_dot(jv, w, M), check_dot(v, dx, N), 1e-13, "layer dot test <Jv,w>=<v,J^T w>");
    for (int i = 0; i < M; ++i)
      CHECK_CLOSE(dy[i], 0.0, 0, "layer output shadow consumed dy[%d]", i);
    /* W and b active too */
    double dW[M * N], db[M];
    memset(dW, 0, sizeof dW);
    memset(db, 0, sizeof db);
    memset(dx, 0, sizeof dx);
    memcpy(dy, w, sizeof w);
    __enzyme_autodiff((void *)layer, W, dW, b, db, x, dx, y, dy);
    for (int i = 0; i < M; ++i) {
      double s = 1 - yref[i] * yref[i];
      CHECK_CLOSE(db[i], w[i] * s, 1e-14, "layer db[%d]", i);
      for (int j = 0; j < N; ++j)
        CHECK_CLOSE(dW[i * N + j], w[i] * s * x[j], 1e-14, "layer dW[%d][%d]", i, j);
    }

    /* matmul: dot-product test with A and B both active */
    double A[M * N], B[N * M], C[M * M], vA[M * N], vB[N * M], vC[M * M], wC[M * M], gA[M * N], gB[N * M];
    check_fill(A, M * N, -1, 1);
    check_fill(B, N * M, -1, 1);
    check_fill(vA, M * N, -1, 1);
    check_fill(vB, N * M, -1, 1);
    check_fill(wC, M * M, -1, 1);
    __enzyme_fwddiff((void *)matmul, A, vA, B, vB, C, vC);
    memset(gA, 0, sizeof gA);
    memset(gB, 0, sizeof gB);
    double wC2[M * M];
    memcpy(wC2, wC, sizeof wC);
    __enzyme_autodiff((void *)matmul, A, gA, B, gB, C, wC2);
    CHECK_CLOSE(check_dot(vC, wC, M * M), check_dot(vA, gA, M * N) + check_dot(vB, gB, N * M), 1e-13,
                "matmul dot test");
    for (int i = 0; i < M; ++i)
      for (int k = 0; k < M; ++k) {
        double s = 0;
        for (int j = 0; j < N; ++j)
          s += vA[i * N + j] * B[j * M + k] + A[i * N + j] * vB[j * M + k];
        CHECK_CLOSE(vC[i * M + k], s, 1e-14, "fwd matmul C'[%d][%d]", i, k);
      }

    /* stencil and prefix: forward vs FD, dot test */
    double ys[N], dys[N], ws[N], fdv[N];
    __enzyme_fwddiff((void *)stencil, x, v, ys, dys, N);
    check_fd_jvp(stencil_fd, 0, x, N, v, N, fdv);
    for (int i = 0; i < N; ++i)
      CHECK_CLOSE(dys[i], fdv[i], 1e-7, "fwd stencil[%d] vs FD", i);
    check_fill(ws, N, -1, 1);
    double jvs = check_dot(dys, ws, N);
    memset(dx, 0, sizeof dx);
    __enzyme_autodiff((void *)stencil, x, dx, ys, ws, N);
    CHECK_CLOSE(jvs, check_dot(v, dx, N), 1e-13, "stencil dot test");

    __enzyme_fwddiff((void *)prefix, x, v, ys, dys, N);
    check_fd_jvp(prefix_fd, 0, x, N, v, N, fdv);
    for (int i = 0; i < N; ++i)
      CHECK_CLOSE(dys[i], fdv[i], 1e-7, "fwd prefix[%d] vs FD", i);
    check_fill(ws, N, -1, 1);
    jvs = check_dot(dys, ws, N);
    memset(dx, 0, sizeof dx);
    __enzyme_autodiff((void *)prefix, x, dx, ys, ws, N);
    CHECK_CLOSE(jvs, check_dot(v, dx, N), 1e-13, "prefix dot test");

    /* 2-D array */
    double gr[3][4], dgr[3][4], fdg[12];
    check_fill(&gr[0][0], 12, -1, 1);
    memset(dgr, 0, sizeof dgr);
    __enzyme_autodiff((void *)grid, gr, dgr, 3);
    int rows = 3;
    check_fd_grad(grid_fd, &rows, &gr[0][0], 12, fdg);
    for (int i = 0; i < 12; ++i)
      CHECK_CLOSE((&dgr[0][0])[i], fdg[i], 1e-7, "grid d[%d]", i);
  }
  return check_report();
}
