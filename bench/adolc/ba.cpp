/* ADOL-C: one observation's residual taped once; jacobian() replays the tape at every
 * observation's inputs.  The feature point is taped as two extra inputs (17 in all) because the
 * weight's column depends on it. */
#include <adolc/adolc.h>
extern "C" {
#include "../objectives/ba.h"
#include "../harness/bench.h"
}

static void cross(const adouble *a, const adouble *b, adouble *o) {
  o[0] = a[1] * b[2] - a[2] * b[1];
  o[1] = a[2] * b[0] - a[0] * b[2];
  o[2] = a[0] * b[1] - a[1] * b[0];
}

/* Every generated rotation is non-zero, so the tape records the general Rodrigues branch. */
static void reproj(const adouble *cam, const adouble *X, const adouble &w, const adouble *feat,
                   adouble *err) {
  adouble Xo[3], Xc[3], wv[3], wx[3];
  for (int i = 0; i < 3; ++i) Xo[i] = X[i] - cam[3 + i];
  adouble th = sqrt(cam[0] * cam[0] + cam[1] * cam[1] + cam[2] * cam[2]);
  adouble c = cos(th), s = sin(th);
  for (int i = 0; i < 3; ++i) wv[i] = cam[i] / th;
  cross(wv, Xo, wx);
  adouble tmp = (wv[0] * Xo[0] + wv[1] * Xo[1] + wv[2] * Xo[2]) * (1 - c);
  for (int i = 0; i < 3; ++i) Xc[i] = Xo[i] * c + wx[i] * s + wv[i] * tmp;
  adouble px = Xc[0] / Xc[2], py = Xc[1] / Xc[2];
  adouble rsq = px * px + py * py, L = 1 + cam[9] * rsq + cam[10] * rsq * rsq;
  err[0] = w * (px * L * cam[6] + cam[7] - feat[0]);
  err[1] = w * (py * L * cam[6] + cam[8] - feat[1]);
}

static double **J;

extern "C" {
const char *tool_name = "adolc";
void tool_prepare(Problem *p) {
  double in[17], out[2];
  for (int j = 0; j < 11; ++j) in[j] = p->cams[11 * p->obs[0] + j];
  for (int j = 0; j < 3; ++j) in[11 + j] = p->X[3 * p->obs[1] + j];
  in[14] = p->w[0];
  in[15] = p->feats[0];
  in[16] = p->feats[1];
  trace_on(1);
  adouble a[17], e[2];
  for (int j = 0; j < 17; ++j) a[j] <<= in[j];
  reproj(a, a + 11, a[14], a + 15, e);
  e[0] >>= out[0];
  e[1] >>= out[1];
  trace_off();
  trace_on(2);
  adouble w, ew;
  w <<= p->w[0];
  ew = 1 - w * w;
  ew >>= out[0];
  trace_off();
  J = myalloc2(2, 17);
}
void tool_deriv(Problem *p, double *D) {
  double in[17];
  for (int i = 0; i < p->p; ++i) {
    for (int j = 0; j < 11; ++j) in[j] = p->cams[11 * p->obs[2 * i] + j];
    for (int j = 0; j < 3; ++j) in[11 + j] = p->X[3 * p->obs[2 * i + 1] + j];
    in[14] = p->w[i];
    in[15] = p->feats[2 * i];
    in[16] = p->feats[2 * i + 1];
    jacobian(1, 2, 17, in, J);
    for (int r = 0; r < 2; ++r)
      for (int k = 0; k < 15; ++k) D[30L * i + 15 * r + k] = J[r][k];
    gradient(2, 1, p->w + i, D + 30L * p->p + i);
  }
}
}
