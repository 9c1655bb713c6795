#include "hand.h"
#include "../harness/bench.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void mul3(const double *a, const double *b, double *o) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      o[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
}

static void mul4(const double *a, const double *b, double *o) {
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      double s = 0;
      for (int k = 0; k < 4; ++k) s += a[4 * i + k] * b[4 * k + j];
      o[4 * i + j] = s;
    }
}

/* Elementary rotations; with d set, the derivative w.r.t. the angle instead. */
static void rot(int axis, double a, int d, double *R) {
  double c = cos(a), s = sin(a);
  if (d) { double t = c; c = -s; s = t; }
  int i = (axis + 1) % 3, j = (axis + 2) % 3;
  for (int k = 0; k < 9; ++k) R[k] = 0;
  R[4 * axis] = d ? 0 : 1;
  R[3 * i + i] = c;
  R[3 * i + j] = -s;
  R[3 * j + i] = s;
  R[3 * j + j] = c;
}

/* R = Rz(e[1]) Ry(e[2]) Rx(e[0]): flexion about x, spread about z; dax >= 0 differentiates. */
static void euler_matrix(const double *e, int dax, double *R) {
  double X[9], Y[9], Z[9], T[9];
  rot(0, e[0], dax == 0, X);
  rot(1, e[2], dax == 2, Y);
  rot(2, e[1], dax == 1, Z);
  mul3(Z, Y, T);
  mul3(T, X, R);
}

static void angle_axis_matrix(const double *a, double *R) {
  double th = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
  for (int k = 0; k < 9; ++k) R[k] = k % 4 == 0;
  if (th < 1e-4) return;
  double w[3] = {a[0] / th, a[1] / th, a[2] / th}, c = cos(th), s = sin(th);
  double K[9] = {0, -w[2], w[1], w[2], 0, -w[0], -w[1], w[0], 0};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) R[3 * i + j] = c * (i == j) + s * K[3 * i + j] + (1 - c) * w[i] * w[j];
}

static void rel_with_rot(const double *base, const double *R, double *out) {
  double M[16] = {R[0], R[1], R[2], 0, R[3], R[4], R[5], 0, R[6], R[7], R[8], 0, 0, 0, 0, 1};
  mul4(base, M, out);
}

static void pose_of(const double *theta, const HandModel *md, double pose[HAND_BONES][3]) {
  memset(pose, 0, sizeof(double) * 3 * HAND_BONES);
  for (int k = 6; k < HAND_THETA; ++k) pose[md->theta_bone[k]][md->theta_axis[k]] = theta[k];
}

void hand_primal(const double *theta, const HandModel *md, int npts, const int *corr,
                 const double *points, double *err) {
  double pose[HAND_BONES][3], R[9], rel[16], absm[HAND_BONES][16], T[HAND_BONES][16], G[9];
  pose_of(theta, md, pose);
  for (int b = 0; b < HAND_BONES; ++b) {
    euler_matrix(pose[b], -1, R);
    rel_with_rot(md->base_rel[b], R, rel);
    if (md->parent[b] < 0) memcpy(absm[b], rel, sizeof rel);
    else mul4(absm[md->parent[b]], rel, absm[b]);
    mul4(absm[b], md->inv_base_abs[b], T[b]);
  }
  double *verts = malloc(sizeof(double) * 3 * (size_t)md->nverts);
  for (int v = 0; v < md->nverts; ++v) {
    const double *x = md->base_pos + 3 * v;
    double acc[3] = {0, 0, 0};
    for (int b = 0; b < HAND_BONES; ++b) {
      double wgt = md->weights[v * HAND_BONES + b];
      for (int i = 0; i < 3; ++i)
        acc[i] += wgt * (T[b][4 * i] * x[0] + T[b][4 * i + 1] * x[1] + T[b][4 * i + 2] * x[2] +
                         T[b][4 * i + 3]);
    }
    memcpy(verts + 3 * v, acc, sizeof acc);
  }
  angle_axis_matrix(theta, G);
  for (int i = 0; i < npts; ++i) {
    const double *v = verts + 3 * corr[i];
    for (int r = 0; r < 3; ++r)
      err[3 * i + r] = points[3 * i + r] -
                       (G[3 * r] * v[0] + G[3 * r + 1] * v[1] + G[3 * r + 2] * v[2] + theta[3 + r]);
  }
  free(verts);
}

static void rigid_inverse(const double *M, double *o) {
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) o[4 * i + j] = M[4 * j + i];
    o[4 * i + 3] = -(M[i] * M[3] + M[4 + i] * M[7] + M[8 + i] * M[11]);
  }
  o[12] = o[13] = o[14] = 0;
  o[15] = 1;
}

Problem *obj_setup(int size) {
  static const int V[] = {100, 544, 1088}, NP[] = {50, 1000, 4000};
  Problem *p = calloc(1, sizeof *p);
  HandModel *md = &p->model;
  md->nverts = V[size];
  p->npts = NP[size];
  Rng r;
  rng_seed(&r, 19);
  int k = 6;
  for (int j = 0; j < 6; ++j) md->theta_bone[j] = md->theta_axis[j] = -1;
  md->parent[0] = -1;
  md->parent[1] = 0;
  for (int f = 0; f < 5; ++f)
    for (int j = 0; j < 4; ++j) {
      int b = 2 + 4 * f + j;
      md->parent[b] = j == 0 ? 1 : b - 1;
      if (j < 3) { md->theta_bone[k] = b; md->theta_axis[k++] = 0; }
      if (j == 0) { md->theta_bone[k] = b; md->theta_axis[k++] = 1; }
    }
  double base_abs[HAND_BONES][16];
  for (int b = 0; b < HAND_BONES; ++b) {
    double e[3] = {0.2 * rng_normal(&r), 0.2 * rng_normal(&r), 0.2 * rng_normal(&r)}, R[9];
    euler_matrix(e, -1, R);
    rel_with_rot((double[16]){1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, R,
                 md->base_rel[b]);
    int f = (b - 2) / 4;
    md->base_rel[b][3] = b >= 2 && (b - 2) % 4 == 0 ? 0.2 * (f - 2) : 0.02 * rng_normal(&r);
    md->base_rel[b][7] = b == 0 ? 0 : 0.3 + 0.05 * rng_uniform(&r);
    md->base_rel[b][11] = 0.02 * rng_normal(&r);
    if (md->parent[b] < 0) memcpy(base_abs[b], md->base_rel[b], sizeof base_abs[b]);
    else mul4(base_abs[md->parent[b]], md->base_rel[b], base_abs[b]);
    rigid_inverse(base_abs[b], md->inv_base_abs[b]);
  }
  md->base_pos = alloc_doubles(3L * md->nverts);
  md->weights = alloc_doubles((long)md->nverts * HAND_BONES);
  for (int v = 0; v < md->nverts; ++v) {
    int b = v % HAND_BONES, par = md->parent[b];
    double loc[3] = {0.05 * rng_normal(&r), 0.1 + 0.05 * rng_normal(&r), 0.05 * rng_normal(&r)};
    for (int i = 0; i < 3; ++i)
      md->base_pos[3 * v + i] = base_abs[b][4 * i] * loc[0] + base_abs[b][4 * i + 1] * loc[1] +
                                base_abs[b][4 * i + 2] * loc[2] + base_abs[b][4 * i + 3];
    double wb = par < 0 ? 1.0 : 0.6 + 0.4 * rng_uniform(&r);
    md->weights[v * HAND_BONES + b] = wb;
    if (par >= 0) md->weights[v * HAND_BONES + par] = 1 - wb;
  }
  p->theta = alloc_doubles(HAND_THETA);
  p->corr = malloc(sizeof(int) * (size_t)p->npts);
  p->points = alloc_doubles(3L * p->npts);
  p->err = alloc_doubles(3L * p->npts);
  for (int j = 0; j < HAND_THETA; ++j) p->theta[j] = 0.3 * rng_normal(&r);
  for (int i = 0; i < p->npts; ++i) p->corr[i] = (int)((i * 7919L) % md->nverts);
  /* Observed points: the model at the true pose, plus noise; evaluated near but not at it. */
  hand_primal(p->theta, md, p->npts, p->corr, p->points, p->err);
  for (int i = 0; i < 3 * p->npts; ++i) p->points[i] = -p->err[i] + 0.01 * rng_normal(&r);
  for (int j = 0; j < HAND_THETA; ++j) p->theta[j] += 0.05 * rng_normal(&r);
  return p;
}

void obj_describe(const Problem *p, char *buf, size_t n) {
  snprintf(buf, n, "%d verts, %d pts", p->model.nverts, p->npts);
}
long obj_deriv_len(const Problem *p) { return 3L * p->npts * HAND_THETA; }
/* obj_hand keeps the skinned vertex of every point (and 22 bone transforms). */
long obj_stored_bytes(const Problem *p) { return 8L * (3L * p->npts + 3L * HAND_BONES * 16); }
double obj_primal(Problem *p) {
  hand_primal(p->theta, &p->model, p->npts, p->corr, p->points, p->err);
  return p->err[0] + p->err[3 * p->npts - 1];
}

/* Hand-written Jacobian: a finger parameter moves only its bone's subtree, so each column is
 * propagated down the kinematic chain and skinned only at the corresponding vertices. */
void obj_hand(Problem *p, double *D) {
  const HandModel *md = &p->model;
  const double *th = p->theta;
  int np = p->npts;
  double pose[HAND_BONES][3], R[9], rel[HAND_BONES][16], absm[HAND_BONES][16];
  double T[HAND_BONES][16], G[9];
  pose_of(th, md, pose);
  for (int b = 0; b < HAND_BONES; ++b) {
    euler_matrix(pose[b], -1, R);
    rel_with_rot(md->base_rel[b], R, rel[b]);
    if (md->parent[b] < 0) memcpy(absm[b], rel[b], sizeof rel[b]);
    else mul4(absm[md->parent[b]], rel[b], absm[b]);
    mul4(absm[b], md->inv_base_abs[b], T[b]);
  }
  double *verts = alloc_doubles(3L * np);
  for (int i = 0; i < np; ++i) {
    int v = p->corr[i];
    const double *x = md->base_pos + 3 * v;
    for (int b = 0; b < HAND_BONES; ++b) {
      double wgt = md->weights[v * HAND_BONES + b];
      if (wgt == 0) continue;
      for (int r = 0; r < 3; ++r)
        verts[3 * i + r] += wgt * (T[b][4 * r] * x[0] + T[b][4 * r + 1] * x[1] +
                                   T[b][4 * r + 2] * x[2] + T[b][4 * r + 3]);
    }
  }
  angle_axis_matrix(th, G);
  /* Global rotation: derivative of c I + s K + (1 - c) w w^T along each axis component. */
  double t = sqrt(th[0] * th[0] + th[1] * th[1] + th[2] * th[2]);
  double w[3] = {th[0] / t, th[1] / t, th[2] / t}, c = cos(t), s = sin(t);
  double K[9] = {0, -w[2], w[1], w[2], 0, -w[0], -w[1], w[0], 0};
  for (int j = 0; j < 3; ++j) {
    double dt = w[j], dw[3], dG[9];
    for (int i = 0; i < 3; ++i) dw[i] = ((i == j) - w[i] * w[j]) / t;
    double dK[9] = {0, -dw[2], dw[1], dw[2], 0, -dw[0], -dw[1], dw[0], 0};
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b)
        dG[3 * a + b] = -s * dt * (a == b) + c * dt * K[3 * a + b] + s * dK[3 * a + b] +
                        s * dt * w[a] * w[b] + (1 - c) * (dw[a] * w[b] + w[a] * dw[b]);
    for (int i = 0; i < np; ++i)
      for (int r = 0; r < 3; ++r)
        D[(3L * i + r) * HAND_THETA + j] =
            -(dG[3 * r] * verts[3 * i] + dG[3 * r + 1] * verts[3 * i + 1] +
              dG[3 * r + 2] * verts[3 * i + 2]);
  }
  for (int i = 0; i < np; ++i)
    for (int r = 0; r < 3; ++r)
      for (int j = 3; j < 6; ++j) D[(3L * i + r) * HAND_THETA + j] = -(r == j - 3);
  double dabs[HAND_BONES][16], dT[HAND_BONES][16], drel[16];
  for (int k = 6; k < HAND_THETA; ++k) {
    int kb = md->theta_bone[k];
    char moved[HAND_BONES] = {0};
    euler_matrix(pose[kb], md->theta_axis[k], R);
    double M[16] = {R[0], R[1], R[2], 0, R[3], R[4], R[5], 0, R[6], R[7], R[8], 0, 0, 0, 0, 0};
    mul4(md->base_rel[kb], M, drel);
    for (int b = kb; b < HAND_BONES; ++b) { /* parents precede children */
      if (b == kb) mul4(absm[md->parent[b]], drel, dabs[b]);
      else if (md->parent[b] >= 0 && moved[md->parent[b]]) mul4(dabs[md->parent[b]], rel[b], dabs[b]);
      else continue;
      moved[b] = 1;
      mul4(dabs[b], md->inv_base_abs[b], dT[b]);
    }
    for (int i = 0; i < np; ++i) {
      int v = p->corr[i];
      const double *x = md->base_pos + 3 * v;
      double dv[3] = {0, 0, 0};
      for (int b = kb; b < HAND_BONES; ++b) {
        double wgt = md->weights[v * HAND_BONES + b];
        if (!moved[b] || wgt == 0) continue;
        for (int r = 0; r < 3; ++r)
          dv[r] += wgt * (dT[b][4 * r] * x[0] + dT[b][4 * r + 1] * x[1] + dT[b][4 * r + 2] * x[2] +
                          dT[b][4 * r + 3]);
      }
      for (int r = 0; r < 3; ++r)
        D[(3L * i + r) * HAND_THETA + k] = -(G[3 * r] * dv[0] + G[3 * r + 1] * dv[1] + G[3 * r + 2] * dv[2]);
    }
  }
  free(verts);
}

static void eval(Problem *p, double *y) {
  hand_primal(p->theta, &p->model, p->npts, p->corr, p->points, y);
}
double obj_fd(Problem *p, double *D, long max_cols) {
  return fd_dense(eval, p, p->theta, HAND_THETA, 3L * p->npts, D, max_cols);
}
