// Realistic numeric kernels in the style of ADBench/GradBench: a Gaussian-mixture-style
// objective (log-sum-exp over components, Cholesky-like triangular factors), an LSTM-style
// recurrent cell unrolled over a sequence, an RK4 ODE integration with the state overwritten
// every step, and a linear least-squares objective. Reverse gradients vs. central differences
// (rho < 1e-6 as in ADBench), forward vs. reverse dot-product test on random directions.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
#include "check.h"

/* ---- GMM-like objective: params = [alphas K | means K*D | log-diag K*D | lower K*D*(D-1)/2] ---- */
#define K 3
#define D 3
#define NPTS 5
#define NL (D * (D - 1) / 2)
#define NGMM (K + K * D + K * D + K * NL)
static double gmm(const double *p, const double *x) {
  const double *alpha = p, *mu = p + K, *q = p + K + K * D, *l = p + K + 2 * K * D;
  double amax = alpha[0], asum = 0;
  for (int k = 1; k < K; ++k)
    amax = fmax(amax, alpha[k]);
  for (int k = 0; k < K; ++k)
    asum += exp(alpha[k] - amax);
  double total = 0;
  for (int i = 0; i < NPTS; ++i) {
    double lse[K], m = -1e300;
    for (int k = 0; k < K; ++k) {
      double xc[D], qx[D], sumq = 0;
      for (int d = 0; d < D; ++d) {
        xc[d] = x[i * D + d] - mu[k * D + d];
        sumq += q[k * D + d];
      }
      int li = 0;
      for (int d = 0; d < D; ++d) {
        qx[d] = exp(q[k * D + d]) * xc[d];
        for (int e = 0; e < d; ++e)
          qx[d] += l[k * NL + li++] * xc[e];
      }
      double sq = 0;
      for (int d = 0; d < D; ++d)
        sq += qx[d] * qx[d];
      lse[k] = alpha[k] + sumq - 0.5 * sq;
      m = fmax(m, lse[k]);
    }
    double s = 0;
    for (int k = 0; k < K; ++k)
      s += exp(lse[k] - m);
    total += m + log(s);
  }
  double reg = 0;
  for (int j = 0; j < K * D; ++j)
    reg += exp(2 * q[j]) * 0.5;
  for (int j = 0; j < K * NL; ++j)
    reg += l[j] * l[j] * 0.5;
  return total - NPTS * (amax + log(asum)) - reg;
}

/* ---- LSTM-style cell unrolled over T steps; weights [4H*(H+1)] + output layer [H] ---- */
#define H 3
#define T 4
#define NLSTM (4 * H * (H + 1) + H)
static double sigmoid(double v) { return 1.0 / (1.0 + exp(-v)); }
static double lstm(const double *w, const double *seq) {
  double h[H] = {0}, c[H] = {0}, loss = 0;
  for (int t = 0; t < T; ++t) {
    double g[4 * H];
    for (int r = 0; r < 4 * H; ++r) {
      const double *row = w + r * (H + 1);
      double s = row[H] * seq[t];
      for (int j = 0; j < H; ++j)
        s += row[j] * h[j];
      g[r] = s;
    }
    for (int j = 0; j < H; ++j) {
      double ig = sigmoid(g[j]), fg = sigmoid(g[H + j]), og = sigmoid(g[2 * H + j]), cc = tanh(g[3 * H + j]);
      c[j] = fg * c[j] + ig * cc; /* state overwritten in place */
      h[j] = og * tanh(c[j]);
    }
    double y = 0;
    for (int j = 0; j < H; ++j)
      y += w[4 * H * (H + 1) + j] * h[j];
    double e = y - seq[(t + 1) % T];
    loss += e * e;
  }
  return loss;
}

/* ---- RK4 on a Lotka-Volterra-like system, params [4], initial state [2] ---- */
static void rhs(const double *p, const double *u, double *du) {
  du[0] = p[0] * u[0] - p[1] * u[0] * u[1];
  du[1] = p[2] * u[0] * u[1] - p[3] * u[1];
}
static double rk4(const double *p, double *u, int steps) {
  double dt = 0.02;
  for (int s = 0; s < steps; ++s) {
    double k1[2], k2[2], k3[2], k4[2], t[2];
    rhs(p, u, k1);
    for (int i = 0; i < 2; ++i)
      t[i] = u[i] + 0.5 * dt * k1[i];
    rhs(p, t, k2);
    for (int i = 0; i < 2; ++i)
      t[i] = u[i] + 0.5 * dt * k2[i];
    rhs(p, t, k3);
    for (int i = 0; i < 2; ++i)
      t[i] = u[i] + dt * k3[i];
    rhs(p, t, k4);
    for (int i = 0; i < 2; ++i)
      u[i] += dt / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
  }
  return u[0] * u[0] + 0.5 * u[1];
}

/* ---- linear least squares: 0.5 |A x - b|^2, A and b const ---- */
#define M 6
#define NX 4
static double llsq(const double *A, const double *b, const double *x) {
  double s = 0;
  for (int i = 0; i < M; ++i) {
    double r = -b[i];
    for (int j = 0; j < NX; ++j)
      r += A[i * NX + j] * x[j];
    s += 0.5 * r * r;
  }
  return s;
}

static double gmm_fd(const double *p, void *c) { return gmm(p, (const double *)c); }
static double lstm_fd(const double *w, void *c) { return lstm(w, (const double *)c); }
static double rk4_fd(const double *v, void *c) {
  double u[2] = {v[4], v[5]};
  return rk4(v, u, *(int *)c);
}

static double rho(double a, double b) { return fabs(a - b) / fmax(1.0, fabs(a) + fabs(b)); }

#define GRADCHECK(name, n, g, fd, dir, tangent)                                                     \
  do {                                                                                             \
    for (int i = 0; i < (n); ++i)                                                                  \
      CHECK_TRUE(rho(g[i], fd[i]) < 1e-6, "%s gradient[%d]: %.12g vs FD %.12g", name, i, g[i], fd[i]); \
    CHECK_CLOSE(tangent, check_dot(g, dir, n), 1e-11, "%s dot test", name);                        \
  } while (0)

int main(void) {
  check_seed(83);
  for (int rep = 0; rep < 2; ++rep) {
    double p[NGMM], x[NPTS * D], g[NGMM], fd[NGMM], v[NGMM];
    check_fill(p, NGMM, -0.5, 0.5);
    check_fill(x, NPTS * D, -1, 1);
    memset(g, 0, sizeof g);
    __enzyme_autodiff((void *)gmm, enzyme_dup, p, g, enzyme_const, x);
    check_fd_grad(gmm_fd, x, p, NGMM, fd);
    check_fill(v, NGMM, -1, 1);
    double tg = __enzyme_fwddiff((void *)gmm, enzyme_dup, p, v, enzyme_const, x);
    GRADCHECK("gmm", NGMM, g, fd, v, tg);

    double w[NLSTM], seq[T], gw[NLSTM], fw[NLSTM], vw[NLSTM];
    check_fill(w, NLSTM, -0.8, 0.8);
    check_fill(seq, T, -1, 1);
    memset(gw, 0, sizeof gw);
    __enzyme_autodiff((void *)lstm, w, gw, enzyme_const, seq);
    check_fd_grad(lstm_fd, seq, w, NLSTM, fw);
    check_fill(vw, NLSTM, -1, 1);
    double tl = __enzyme_fwddiff((void *)lstm, w, vw, enzyme_const, seq);
    GRADCHECK("lstm", NLSTM, gw, fw, vw, tl);

    /* rk4: gradient w.r.t. 4 params and 2 initial values */
    double pv[6] = {1.1, 0.4, 0.1, 0.4, 1.0 + 0.1 * rep, 0.5}, gp[6] = {0}, fdp[6], vp[6];
    double u[2] = {pv[4], pv[5]}, du[2] = {0, 0};
    int steps = 100;
    __enzyme_autodiff((void *)rk4, pv, gp, u, du, steps);
    gp[4] = du[0];
    gp[5] = du[1];
    check_fd_grad(rk4_fd, &steps, pv, 6, fdp);
    check_fill(vp, 6, -1, 1);
    double u2[2] = {pv[4], pv[5]}, tu[2] = {vp[4], vp[5]}, tp[4] = {vp[0], vp[1], vp[2], vp[3]};
    double tr = __enzyme_fwddiff((void *)rk4, pv, tp, u2, tu, steps);
    GRADCHECK("rk4", 6, gp, fdp, vp, tr);

    double A[M * NX], b[M], xs[NX], gx[NX] = {0};
    check_fill(A, M * NX, -1, 1);
    check_fill(b, M, -1, 1);
    check_fill(xs, NX, -1, 1);
    __enzyme_autodiff((void *)llsq, enzyme_const, A, enzyme_const, b, xs, gx);
    for (int j = 0; j < NX; ++j) {
      double want = 0;
      for (int i = 0; i < M; ++i) {
        double r = -b[i];
        for (int k = 0; k < NX; ++k)
          r += A[i * NX + k] * xs[k];
        want += A[i * NX + j] * r;
      }
      CHECK_CLOSE(gx[j], want, 1e-14, "llsq gradient[%d] = A^T(Ax-b)", j);
    }
  }
  return check_report();
}
