// Vector reverse mode (enzyme_width N with __enzyme_autodiff): one forward sweep, one tape, N
// adjoint lanes. Checked against N scalar reverse calls, forward mode and analytic derivatives.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O0 -I%inputs %s -o %t4 -lm && %t4
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t5 -lm && %t5
#include "check.h"

/* ---- a Jacobian of R^3 -> R^2, both rows in one reverse call ---- */
static void g(const double *x, double *y) {
  y[0] = x[0] * x[1] + sin(x[2]);
  y[1] = x[0] * x[0] * exp(x[1] * x[2]);
}

static void jacobian_rows(void) {
  double x[3] = {0.7, -0.4, 1.3}, y[2];
  double r0[3] = {0}, r1[3] = {0};
  double s0[2] = {1, 0}, s1[2] = {0, 1};
  __enzyme_autodiff((void *)g, enzyme_width, 2, enzyme_dup, x, r0, r1, enzyme_dupnoneed, y, s0, s1);
  /* columns by forward vector mode */
  double e0[3] = {1, 0, 0}, e1[3] = {0, 1, 0}, e2[3] = {0, 0, 1};
  double yy[2], c0[2], c1[2], c2[2];
  __enzyme_fwddiff((void *)g, enzyme_width, 3, enzyme_dup, x, e0, e1, e2, enzyme_dup, yy, c0, c1, c2);
  double *cols[3] = {c0, c1, c2};
  double ex = exp(x[1] * x[2]);
  double J[2][3] = {{x[1], x[0], cos(x[2])},
                    {2 * x[0] * ex, x[0] * x[0] * x[2] * ex, x[0] * x[0] * x[1] * ex}};
  for (int j = 0; j < 3; j++) {
    CHECK_CLOSE(r0[j], J[0][j], 1e-12, "jacobian row 0 col %d", j);
    CHECK_CLOSE(r1[j], J[1][j], 1e-12, "jacobian row 1 col %d", j);
    CHECK_CLOSE(r0[j], cols[j][0], 1e-12, "row 0 vs forward column %d", j);
    CHECK_CLOSE(r1[j], cols[j][1], 1e-12, "row 1 vs forward column %d", j);
  }
  CHECK_CLOSE(y[0], x[0] * x[1] + sin(x[2]), 1e-15, "primal written once");
}

/* ---- widths 2, 4, 8: enzyme_dup and enzyme_dupv against scalar reverse calls ---- */
#define M 5
static void h(const double *x, double *y, int n) {
  for (int i = 0; i < n; i++)
    y[i] = x[i] * x[(i + 1) % n] + cos(x[i]) * x[(i + 2) % n];
}

static void lanes_vs_scalar(int W, int use_dupv) {
  double x[M] = {0.3, -1.1, 0.8, 2.0, -0.5}, y[M];
  double dx[8][M], dy[8][M], ref[8][M];
  for (int l = 0; l < W; l++)
    for (int i = 0; i < M; i++) {
      dy[l][i] = sin(1.0 + l * 7 + i); /* a different output weight per lane */
      dx[l][i] = 0;
    }
  for (int l = 0; l < W; l++) {
    double ddy[M], yy[M];
    memcpy(ddy, dy[l], sizeof ddy);
    for (int i = 0; i < M; i++) ref[l][i] = 0;
    __enzyme_autodiff((void *)h, enzyme_dup, x, ref[l], enzyme_dup, yy, ddy, enzyme_const, M);
  }
  if (use_dupv) {
    long st = sizeof(double) * M;
    switch (W) {
    case 2: __enzyme_autodiff((void *)h, enzyme_width, 2, enzyme_dupv, st, x, dx, enzyme_dupv, st, y, dy, enzyme_const, M); break;
    case 4: __enzyme_autodiff((void *)h, enzyme_width, 4, enzyme_dupv, st, x, dx, enzyme_dupv, st, y, dy, enzyme_const, M); break;
    case 8: __enzyme_autodiff((void *)h, enzyme_width, 8, enzyme_dupv, st, x, dx, enzyme_dupv, st, y, dy, enzyme_const, M); break;
    }
  } else {
    switch (W) {
    case 2: __enzyme_autodiff((void *)h, enzyme_width, 2, enzyme_dup, x, dx[0], dx[1], enzyme_dup, y, dy[0], dy[1], enzyme_const, M); break;
    case 4: __enzyme_autodiff((void *)h, enzyme_width, 4, enzyme_dup, x, dx[0], dx[1], dx[2], dx[3],
                              enzyme_dup, y, dy[0], dy[1], dy[2], dy[3], enzyme_const, M); break;
    case 8: __enzyme_autodiff((void *)h, enzyme_width, 8, enzyme_dup, x, dx[0], dx[1], dx[2], dx[3], dx[4], dx[5], dx[6], dx[7],
                              enzyme_dup, y, dy[0], dy[1], dy[2], dy[3], dy[4], dy[5], dy[6], dy[7], enzyme_const, M); break;
    }
  }
  for (int l = 0; l < W; l++)
    for (int i = 0; i < M; i++) {
      CHECK_CLOSE(dx[l][i], ref[l][i], 1e-12, "width %d %s lane %d dx[%d]", W, use_dupv ? "dupv" : "dup", l, i);
      CHECK_CLOSE(dy[l][i], 0, 1e-15, "width %d lane %d output adjoint consumed", W, l);
    }
}

/* ---- loop, branch, malloc'd temporaries, a recursive callee: width 4 ---- */
/* two recursive calls: stays a recursive call at -O2 too */
__attribute__((noinline)) static double rpow(double x, int k) {
  if (k <= 1) return k == 1 ? x : 1.0;
  return rpow(x, k / 2) * rpow(x, k - k / 2);
}

static double busy(const double *x, double *w, int n) {
  double *t = (double *)malloc(sizeof(double) * n);
  double s = 0;
  for (int i = 0; i < n; i++) {
    t[i] = x[i] > 0 ? sqrt(x[i] + 1.0) * w[i] : x[i] * x[i] * w[i];
    s += rpow(t[i], 3);
  }
  for (int i = 0; i < n; i++) w[i] = t[i] * s; /* writes a duplicated output too */
  free(t);
  return s;
}

static double busy_x(const double *x, void *ctx) {
  double w[M];
  memcpy(w, ctx, sizeof w);
  double r = busy(x, w, M);
  double *wt = (double *)ctx + M; /* weights of the lane */
  r *= wt[M];
  for (int i = 0; i < M; i++) r += wt[i] * w[i];
  return r;
}

static void busy_width4(void) {
  double x[M] = {0.4, -0.9, 1.2, -0.3, 0.7}, w0[M] = {1.1, 0.9, -0.8, 1.3, 0.5};
  double dx[4][M] = {{0}}, dw[4][M], seeds[4] = {1.0, -2.0, 0.5, 3.0};
  double ow[4][M]; /* lane l's weight on the final w */
  for (int l = 0; l < 4; l++)
    for (int i = 0; i < M; i++) ow[l][i] = dw[l][i] = cos(l + 0.3 * i);
  double w[M];
  memcpy(w, w0, sizeof w);
  __enzyme_autodiff((void *)busy, enzyme_width, 4, enzyme_dup, x, dx[0], dx[1], dx[2], dx[3],
                    enzyme_dup, w, dw[0], dw[1], dw[2], dw[3], enzyme_const, M,
                    seeds[0], seeds[1], seeds[2], seeds[3]);
  for (int l = 0; l < 4; l++) {
    /* lane l is the gradient of seeds[l]*busy + <ow[l], w_after> with respect to x */
    double ctx[2 * M + 1];
    memcpy(ctx, w0, sizeof w0);
    memcpy(ctx + M, ow[l], sizeof ow[l]);
    ctx[2 * M] = seeds[l];
    double fd[M];
    check_fd_grad(busy_x, ctx, x, M, fd);
    for (int i = 0; i < M; i++)
      CHECK_CLOSE(dx[l][i], fd[i], 1e-6, "busy width 4 lane %d dx[%d]", l, i);
    /* and against a scalar reverse call */
    double ww[M], dww[M], dxx[M] = {0};
    memcpy(ww, w0, sizeof ww);
    memcpy(dww, ow[l], sizeof dww);
    __enzyme_autodiff((void *)busy, enzyme_dup, x, dxx, enzyme_dup, ww, dww, enzyme_const, M, seeds[l]);
    for (int i = 0; i < M; i++) {
      CHECK_CLOSE(dx[l][i], dxx[i], 1e-12, "busy lane %d vs scalar dx[%d]", l, i);
      CHECK_CLOSE(dw[l][i], dww[i], 1e-12, "busy lane %d vs scalar dw[%d]", l, i);
    }
  }
  double ww[M];
  memcpy(ww, w0, sizeof ww);
  busy(x, ww, M);
  for (int i = 0; i < M; i++) CHECK_CLOSE(w[i], ww[i], 1e-14, "busy primal side effect once, w[%d]", i);
}

/* ---- active scalars (enzyme_out) at width 2: [2 x double] per argument ---- */
static double q(double a, double b, const double *c) { return a * a * b + sin(b) * c[0] + a * c[1]; }
typedef struct { double da[2]; double db[2]; } Q2;
typedef struct { double prim; double da[2]; double db[2]; } PQ2;
Q2 __enzyme_autodiff_q2(void *, ...);
PQ2 __enzyme_autodiff_pq2(void *, ...);
extern int enzyme_primal_return;

static void out_width2(void) {
  double a = 0.8, b = -1.3, c[2] = {2.0, 0.5}, dc0[2] = {0}, dc1[2] = {0};
  Q2 r = __enzyme_autodiff_q2((void *)q, enzyme_width, 2, enzyme_out, a, enzyme_out, b,
                              enzyme_dup, c, dc0, dc1, 2.0, -3.0);
  double s[2] = {2.0, -3.0};
  double dqa = 2 * a * b + c[1], dqb = a * a + cos(b) * c[0];
  for (int l = 0; l < 2; l++) {
    double *dc = l ? dc1 : dc0;
    CHECK_CLOSE(r.da[l], s[l] * dqa, 1e-12, "enzyme_out width 2 da lane %d", l);
    CHECK_CLOSE(r.db[l], s[l] * dqb, 1e-12, "enzyme_out width 2 db lane %d", l);
    CHECK_CLOSE(dc[0], s[l] * sin(b), 1e-12, "width 2 dc[0] lane %d", l);
    CHECK_CLOSE(dc[1], s[l] * a, 1e-12, "width 2 dc[1] lane %d", l);
  }
  /* default seeds: 1 in every lane (Enzyme's), with the primal first */
  double e0[2] = {0}, e1[2] = {0};
  PQ2 p = __enzyme_autodiff_pq2((void *)q, enzyme_primal_return, enzyme_width, 2, enzyme_out, a,
                                enzyme_out, b, enzyme_dup, c, e0, e1);
  CHECK_CLOSE(p.prim, q(a, b, c), 1e-15, "primal return at width 2");
  for (int l = 0; l < 2; l++) {
    CHECK_CLOSE(p.da[l], dqa, 1e-12, "default seed da lane %d", l);
    CHECK_CLOSE(p.db[l], dqb, 1e-12, "default seed db lane %d", l);
    /* forward mode agrees */
    double t = __enzyme_fwddiff((void *)q, a, 1.0, b, 0.0, enzyme_const, c);
    CHECK_CLOSE(p.da[l], t, 1e-12, "forward agrees on da lane %d", l);
  }
}

/* ---- split mode at width 2: augmented call, user code, reverse call ---- */
#ifdef __cplusplus
extern "C" {
#endif
void *__enzyme_augmentfwd(void *, ...);
double __enzyme_reverse(void *, ...);
#ifdef __cplusplus
}
#endif

static void split_width2(void) {
  double x[3] = {-0.2, 0.9, 0.4}, y[2];
  double r0[3] = {0}, r1[3] = {0}, s0[2] = {0, 0}, s1[2] = {0, 0};
  void *tape = __enzyme_augmentfwd((void *)g, enzyme_width, 2, enzyme_dup, x, r0, r1, enzyme_dupnoneed, y, s0, s1);
  s0[0] = 1; /* the seeds are only read by the reverse call */
  s1[1] = 1;
  __enzyme_reverse((void *)g, enzyme_width, 2, enzyme_dup, x, r0, r1, enzyme_dupnoneed, y, s0, s1, tape);
  double q0[3] = {0}, q1[3] = {0}, t0[2] = {1, 0}, t1[2] = {0, 1}, yy[2];
  __enzyme_autodiff((void *)g, enzyme_width, 2, enzyme_dup, x, q0, q1, enzyme_dupnoneed, yy, t0, t1);
  for (int j = 0; j < 3; j++) {
    CHECK_CLOSE(r0[j], q0[j], 1e-14, "split width 2 row 0 col %d", j);
    CHECK_CLOSE(r1[j], q1[j], 1e-14, "split width 2 row 1 col %d", j);
  }
}

/* ---- forward over vector reverse: two weighted Hessian-vector products at once ---- */
static double sc(const double *x) { return x[0] * x[0] * x[1] + sin(x[1] * x[2]) + x[2] * x[0]; }
static void grad2(const double *x, double *g0, double *g1) {
  __enzyme_autodiff((void *)sc, enzyme_width, 2, enzyme_dup, x, g0, g1, 1.0, -2.0);
}

static void hvp_width2(void) {
  double x[3] = {0.5, -0.7, 1.1}, v[3] = {0.3, 1.0, -0.6};
  double g0[3] = {0}, g1[3] = {0}, h0[3] = {0}, h1[3] = {0};
  __enzyme_fwddiff((void *)grad2, enzyme_dup, x, v, enzyme_dup, g0, h0, enzyme_dup, g1, h1);
  double c = cos(x[1] * x[2]), sn = sin(x[1] * x[2]);
  double H[3][3] = {{2 * x[1], 2 * x[0], 1},
                    {2 * x[0], -x[2] * x[2] * sn, c - x[1] * x[2] * sn},
                    {1, c - x[1] * x[2] * sn, -x[1] * x[1] * sn}};
  for (int i = 0; i < 3; i++) {
    double hv = H[i][0] * v[0] + H[i][1] * v[1] + H[i][2] * v[2];
    CHECK_CLOSE(h0[i], hv, 1e-12, "fwd over width-2 reverse, lane 0 (H v)[%d]", i);
    CHECK_CLOSE(h1[i], -2 * hv, 1e-12, "fwd over width-2 reverse, lane 1 (-2 H v)[%d]", i);
  }
}

/* ---- realloc growth, posix_memalign, memcpy, a pointer stored in a heap struct, a global ---- */
typedef struct { double *v; double s; } Box;
static double gbuf[4];
static double grow(const double *x, int n) {
  double *a = NULL;
  int cap = 0;
  for (int i = 0; i < n; i++) {
    if (i >= cap) { cap = cap ? 2 * cap : 1; a = (double *)realloc(a, sizeof(double) * cap); }
    a[i] = x[i] * x[i];
  }
  double *b;
  if (posix_memalign((void **)&b, 64, sizeof(double) * n)) return 0;
  memcpy(b, a, sizeof(double) * n);
  Box bx; bx.v = b; bx.s = 0;
  Box *pb = (Box *)malloc(sizeof(Box));
  *pb = bx;
  for (int i = 0; i < n; i++) { pb->s += sin(pb->v[i]) * x[(i + 1) % n]; gbuf[i % 4] += pb->v[i]; }
  double r = pb->s + gbuf[0] * gbuf[1];
  free(pb); free(b); free(a);
  return r;
}
static void memory_width4(void) {
  double x[5] = {0.3, -0.7, 1.1, 0.4, -1.2};
  double d[4][5] = {{0}}, s[4] = {1, -1, 2, 0.5};
  memset(gbuf, 0, sizeof gbuf);
  __enzyme_autodiff((void *)grow, enzyme_width, 4, enzyme_dup, x, d[0], d[1], d[2], d[3], enzyme_const, 5, s[0], s[1], s[2], s[3]);
  for (int l = 0; l < 4; l++) {
    double ref[5] = {0};
    memset(gbuf, 0, sizeof gbuf);
    __enzyme_autodiff((void *)grow, enzyme_dup, x, ref, enzyme_const, 5, s[l]);
    for (int i = 0; i < 5; i++) CHECK_CLOSE(d[l][i], ref[i], 1e-12, "memory width 4 lane %d dx[%d]", l, i);
  }
}

int main(void) {
  split_width2();
  hvp_width2();
  jacobian_rows();
  for (int W = 2; W <= 8; W *= 2) {
    lanes_vs_scalar(W, 0);
    lanes_vs_scalar(W, 1);
  }
  busy_width4();
  out_width2();
  memory_width4();
  return check_report();
}
