/* ADOL-C: the model re-written over adouble, taped once (26 inputs, 3 npts outputs); jacobian()
 * replays the tape (forward vector mode, as inputs are few). */
#include <adolc/adolc.h>
#include <cstring>
#include <vector>
extern "C" {
#include "../objectives/hand.h"
#include "../harness/bench.h"
}

typedef adouble A;

static void mul4(const A *a, const A *b, A *o) {
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      o[4 * i + j] = 0;
      for (int k = 0; k < 4; ++k) o[4 * i + j] += a[4 * i + k] * b[4 * k + j];
    }
}

static void mul4c(const A *a, const double *b, A *o) {
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      o[4 * i + j] = 0;
      for (int k = 0; k < 4; ++k) o[4 * i + j] += a[4 * i + k] * b[4 * k + j];
    }
}

static void mul3(const A *a, const A *b, A *o) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      o[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
}

static void rot(int axis, const A &a, A *R) {
  A c = cos(a), s = sin(a);
  int i = (axis + 1) % 3, j = (axis + 2) % 3;
  for (int k = 0; k < 9; ++k) R[k] = 0;
  R[4 * axis] = 1;
  R[3 * i + i] = c;
  R[3 * i + j] = -s;
  R[3 * j + i] = s;
  R[3 * j + j] = c;
}

static void hand(const A *theta, const HandModel *md, int npts, const int *corr,
                 const double *points, A *err) {
  A pose[HAND_BONES][3], X[9], Y[9], Z[9], T9[9], R[9], rel[16], M[16];
  static A absm[HAND_BONES][16], T[HAND_BONES][16];
  for (int b = 0; b < HAND_BONES; ++b)
    for (int e = 0; e < 3; ++e) pose[b][e] = 0;
  for (int k = 6; k < HAND_THETA; ++k) pose[md->theta_bone[k]][md->theta_axis[k]] = theta[k];
  for (int b = 0; b < HAND_BONES; ++b) {
    rot(0, pose[b][0], X);
    rot(1, pose[b][2], Y);
    rot(2, pose[b][1], Z);
    mul3(Z, Y, T9);
    mul3(T9, X, R);
    for (int i = 0; i < 16; ++i) M[i] = 0;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) M[4 * i + j] = R[3 * i + j];
    M[15] = 1;
    A B[16];
    for (int i = 0; i < 16; ++i) B[i] = md->base_rel[b][i];
    mul4(B, M, rel);
    if (md->parent[b] < 0)
      for (int i = 0; i < 16; ++i) absm[b][i] = rel[i];
    else mul4(absm[md->parent[b]], rel, absm[b]);
    mul4c(absm[b], md->inv_base_abs[b], T[b]);
  }
  std::vector<A> verts(3 * md->nverts);
  for (int v = 0; v < md->nverts; ++v) {
    const double *x = md->base_pos + 3 * v;
    for (int i = 0; i < 3; ++i) {
      A acc = 0;
      for (int b = 0; b < HAND_BONES; ++b)
        acc += md->weights[v * HAND_BONES + b] *
               (T[b][4 * i] * x[0] + T[b][4 * i + 1] * x[1] + T[b][4 * i + 2] * x[2] + T[b][4 * i + 3]);
      verts[3 * v + i] = acc;
    }
  }
  A th = sqrt(theta[0] * theta[0] + theta[1] * theta[1] + theta[2] * theta[2]);
  A w[3] = {theta[0] / th, theta[1] / th, theta[2] / th}, c = cos(th), s = sin(th), G[9];
  A K[9] = {0, -w[2], w[1], w[2], 0, -w[0], -w[1], w[0], 0};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) G[3 * i + j] = c * (double)(i == j) + s * K[3 * i + j] + (1 - c) * w[i] * w[j];
  for (int i = 0; i < npts; ++i) {
    const A *v = &verts[3 * corr[i]];
    for (int r = 0; r < 3; ++r)
      err[3 * i + r] = points[3 * i + r] - (G[3 * r] * v[0] + G[3 * r + 1] * v[1] + G[3 * r + 2] * v[2] + theta[3 + r]);
  }
}

static double **J;

extern "C" {
const char *tool_name = "adolc";
void tool_prepare(Problem *p) {
  int m = 3 * p->npts;
  trace_on(1);
  A th[HAND_THETA];
  std::vector<A> err(m);
  for (int j = 0; j < HAND_THETA; ++j) th[j] <<= p->theta[j];
  hand(th, &p->model, p->npts, p->corr, p->points, err.data());
  double out;
  for (int i = 0; i < m; ++i) err[i] >>= out;
  trace_off();
  J = myalloc2(m, HAND_THETA);
}
void tool_deriv(Problem *p, double *D) {
  int m = 3 * p->npts;
  jacobian(1, m, HAND_THETA, p->theta, J);
  for (int i = 0; i < m; ++i) memcpy(D + (long)i * HAND_THETA, J[i], sizeof(double) * HAND_THETA);
}
}
