#include "ba.h"
#include "../harness/bench.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void cross(const double *a, const double *b, double *o) {
  o[0] = a[1] * b[2] - a[2] * b[1];
  o[1] = a[2] * b[0] - a[0] * b[2];
  o[2] = a[0] * b[1] - a[1] * b[0];
}

static void rodrigues_rotate(const double *r, const double *X, double *out) {
  double sq = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
  if (sq != 0) {
    double th = sqrt(sq), c = cos(th), s = sin(th), w[3], wx[3];
    for (int i = 0; i < 3; ++i) w[i] = r[i] / th;
    cross(w, X, wx);
    double tmp = (w[0] * X[0] + w[1] * X[1] + w[2] * X[2]) * (1 - c);
    for (int i = 0; i < 3; ++i) out[i] = X[i] * c + wx[i] * s + w[i] * tmp;
  } else { /* first order near zero rotation */
    double rx[3];
    cross(r, X, rx);
    for (int i = 0; i < 3; ++i) out[i] = X[i] + rx[i];
  }
}

void ba_reproj(const double *cam, const double *X, double w, const double *feat, double *err) {
  double Xo[3], Xc[3];
  for (int i = 0; i < 3; ++i) Xo[i] = X[i] - cam[3 + i];
  rodrigues_rotate(cam, Xo, Xc);
  double px = Xc[0] / Xc[2], py = Xc[1] / Xc[2];
  double rsq = px * px + py * py, L = 1 + cam[9] * rsq + cam[10] * rsq * rsq;
  err[0] = w * (px * L * cam[6] + cam[7] - feat[0]);
  err[1] = w * (py * L * cam[6] + cam[8] - feat[1]);
}

double ba_weight(double w) { return 1 - w * w; }

Problem *obj_setup(int size) {
  static const int N[] = {3, 21, 49}, M[] = {30, 1500, 7776}, P[] = {100, 6000, 31843};
  Problem *p = malloc(sizeof *p);
  p->n = N[size];
  p->m = M[size];
  p->p = P[size];
  p->cams = alloc_doubles(11L * p->n);
  p->X = alloc_doubles(3L * p->m);
  p->w = alloc_doubles(p->p);
  p->feats = alloc_doubles(2L * p->p);
  p->err = alloc_doubles(3L * p->p);
  p->obs = malloc(sizeof(int) * 2 * (size_t)p->p);
  Rng r;
  rng_seed(&r, 18);
  for (int i = 0; i < p->n; ++i) {
    double *c = p->cams + 11 * i;
    for (int j = 0; j < 3; ++j) c[j] = 0.3 * rng_normal(&r);
    for (int j = 3; j < 6; ++j) c[j] = rng_normal(&r);
    c[5] -= 10; /* cameras in front of the points */
    c[6] = 500 + 100 * rng_uniform(&r);
    c[7] = rng_normal(&r);
    c[8] = rng_normal(&r);
    c[9] = 1e-2 * rng_normal(&r);
    c[10] = 1e-3 * rng_normal(&r);
  }
  for (long i = 0; i < 3L * p->m; ++i) p->X[i] = rng_normal(&r);
  for (int i = 0; i < p->p; ++i) {
    p->obs[2 * i] = i % p->n;
    p->obs[2 * i + 1] = i % p->m;
    p->w[i] = 0.5 + rng_uniform(&r);
    p->feats[2 * i] = 10 * rng_normal(&r);
    p->feats[2 * i + 1] = 10 * rng_normal(&r);
  }
  return p;
}

void obj_describe(const Problem *p, char *buf, size_t n) {
  snprintf(buf, n, "%d cams, %d pts, %d obs", p->n, p->m, p->p);
}
long obj_deriv_len(const Problem *p) { return 31L * p->p; }
/* obj_hand differentiates each residual in closed form: nothing is kept. */
long obj_stored_bytes(const Problem *p) { (void)p; return 0; }

double obj_primal(Problem *p) {
  for (int i = 0; i < p->p; ++i) {
    ba_reproj(p->cams + 11 * p->obs[2 * i], p->X + 3 * p->obs[2 * i + 1], p->w[i],
              p->feats + 2 * i, p->err + 2 * i);
    p->err[2L * p->p + i] = ba_weight(p->w[i]);
  }
  return p->err[0] + p->err[3L * p->p - 1];
}

/* Hand-written tangents over the 15 inputs (cam 0..10, X 11..13, w 14), chained by hand. */
static void reproj_jacobian(const double *cam, const double *X, double w, const double *feat,
                            double *J) {
  double Xo[3], dXc[3][15] = {{0}};
  for (int i = 0; i < 3; ++i) Xo[i] = X[i] - cam[3 + i];
  const double *r = cam;
  double sq = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
  double th = sqrt(sq), c = cos(th), s = sin(th), ti = 1 / th, wv[3], wx[3], Xc[3];
  for (int i = 0; i < 3; ++i) wv[i] = r[i] * ti;
  cross(wv, Xo, wx);
  double dot = wv[0] * Xo[0] + wv[1] * Xo[1] + wv[2] * Xo[2], tmp = dot * (1 - c);
  for (int i = 0; i < 3; ++i) Xc[i] = Xo[i] * c + wx[i] * s + wv[i] * tmp;
  for (int j = 0; j < 3; ++j) { /* rotation parameters */
    double dth = r[j] * ti, dc = -s * dth, ds = c * dth, dti = -dth * ti * ti, dw[3], dwx[3];
    for (int i = 0; i < 3; ++i) dw[i] = (i == j ? ti : 0) + r[i] * dti;
    cross(dw, Xo, dwx);
    double ddot = dw[0] * Xo[0] + dw[1] * Xo[1] + dw[2] * Xo[2];
    double dtmp = ddot * (1 - c) + dot * s * dth;
    for (int i = 0; i < 3; ++i)
      dXc[i][j] = Xo[i] * dc + dwx[i] * s + wx[i] * ds + dw[i] * tmp + wv[i] * dtmp;
  }
  for (int a = 0; a < 3; ++a) { /* dXc/dXo = R; the centre enters as -Xo */
    double e[3] = {0}, ex[3];
    e[a] = 1;
    cross(wv, e, ex);
    for (int i = 0; i < 3; ++i) {
      double R = e[i] * c + ex[i] * s + wv[i] * wv[a] * (1 - c);
      dXc[i][11 + a] = R;
      dXc[i][3 + a] = -R;
    }
  }
  double pr[2] = {Xc[0] / Xc[2], Xc[1] / Xc[2]}, dp[2][15];
  for (int k = 0; k < 15; ++k)
    for (int i = 0; i < 2; ++i) dp[i][k] = (dXc[i][k] - pr[i] * dXc[2][k]) / Xc[2];
  double rsq = pr[0] * pr[0] + pr[1] * pr[1], L = 1 + cam[9] * rsq + cam[10] * rsq * rsq;
  double dLdrsq = cam[9] + 2 * cam[10] * rsq, f = cam[6];
  for (int i = 0; i < 2; ++i) {
    double dist = pr[i] * L, proj = dist * f + cam[7 + i];
    for (int k = 0; k < 15; ++k) {
      double drsq = 2 * (pr[0] * dp[0][k] + pr[1] * dp[1][k]);
      double dL = dLdrsq * drsq + (k == 9 ? rsq : 0) + (k == 10 ? rsq * rsq : 0);
      double ddist = dp[i][k] * L + pr[i] * dL;
      double dproj = ddist * f + (k == 6 ? dist : 0) + (k == 7 + i ? 1 : 0);
      J[i * 15 + k] = w * dproj + (k == 14 ? proj - feat[i] : 0);
    }
  }
}

void obj_hand(Problem *p, double *D) {
  for (int i = 0; i < p->p; ++i) {
    reproj_jacobian(p->cams + 11 * p->obs[2 * i], p->X + 3 * p->obs[2 * i + 1], p->w[i],
                    p->feats + 2 * i, D + 30L * i);
    D[30L * p->p + i] = -2 * p->w[i];
  }
}

/* Central differences of each observation's block in its own 15 inputs. */
double obj_fd(Problem *p, double *D, long max_cols) {
  long stride = (p->p * 16L + max_cols - 1) / max_cols, done = 0;
  if (stride < 1) stride = 1;
  for (long i = 0; i < p->p; i += stride, ++done) {
    double in[15], ep[2], em[2];
    for (int j = 0; j < 11; ++j) in[j] = p->cams[11 * p->obs[2 * i] + j];
    for (int j = 0; j < 3; ++j) in[11 + j] = p->X[3 * p->obs[2 * i + 1] + j];
    in[14] = p->w[i];
    for (int k = 0; k < 15; ++k) {
      double x0 = in[k], h = cbrt(2.2e-16) * fmax(1.0, fabs(x0));
      in[k] = x0 + h;
      ba_reproj(in, in + 11, in[14], p->feats + 2 * i, ep);
      in[k] = x0 - h;
      ba_reproj(in, in + 11, in[14], p->feats + 2 * i, em);
      in[k] = x0;
      for (int r = 0; r < 2; ++r) D[30 * i + 15 * r + k] = (ep[r] - em[r]) / (2 * h);
    }
    double h = cbrt(2.2e-16) * fmax(1.0, fabs(p->w[i]));
    D[30L * p->p + i] = (ba_weight(p->w[i] + h) - ba_weight(p->w[i] - h)) / (2 * h);
  }
  return (double)done / (double)p->p;
}
