#include "lstm.h"
#include "../harness/bench.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

static void lstm_cell(int b, const double *w, const double *bias, double *hidden, double *cell,
                      const double *in) {
  for (int i = 0; i < b; ++i) {
    double f = sigmoid(in[i] * w[i] + bias[i]);
    double ig = sigmoid(hidden[i] * w[b + i] + bias[b + i]);
    double o = sigmoid(in[i] * w[2 * b + i] + bias[2 * b + i]);
    double ch = tanh(hidden[i] * w[3 * b + i] + bias[3 * b + i]);
    cell[i] = cell[i] * f + ig * ch;
    hidden[i] = o * tanh(cell[i]);
  }
}

double lstm_primal(int l, int c, int b, const double *main_params, const double *extra_params,
                   const double *state0, const double *seq) {
  /* The state evolves over the sequence; the caller's initial state stays untouched. */
  double *s = malloc(sizeof(double) * 2 * (size_t)l * (size_t)b);
  double *x2 = malloc(sizeof(double) * (size_t)b), *y = malloc(sizeof(double) * (size_t)b);
  memcpy(s, state0, sizeof(double) * 2 * (size_t)l * (size_t)b);
  double total = 0;
  for (int t = 0; t < c - 1; ++t) {
    const double *x = seq + t * b;
    for (int i = 0; i < b; ++i) x2[i] = x[i] * extra_params[i];
    const double *in = x2;
    for (int j = 0; j < l; ++j) {
      lstm_cell(b, main_params + 2 * j * 4 * b, main_params + (2 * j + 1) * 4 * b, s + 2 * j * b,
                s + (2 * j + 1) * b, in);
      in = s + 2 * j * b;
    }
    double mx = -INFINITY;
    for (int i = 0; i < b; ++i) {
      y[i] = in[i] * extra_params[b + i] + extra_params[2 * b + i];
      mx = y[i] > mx ? y[i] : mx;
    }
    double se = 0;
    for (int i = 0; i < b; ++i) se += exp(y[i] - mx);
    double lse = log(se) + mx;
    for (int i = 0; i < b; ++i) total += seq[(t + 1) * b + i] * (y[i] - lse);
  }
  free(s);
  free(x2);
  free(y);
  return -total / ((double)(c - 1) * b);
}

Problem *obj_setup(int size) {
  static const int L[] = {2, 2, 4}, C[] = {10, 1024, 4096}, B[] = {4, 14, 14};
  Problem *p = malloc(sizeof *p);
  p->l = L[size];
  p->c = C[size];
  p->b = B[size];
  long np = 8L * p->l * p->b + 3L * p->b;
  p->params = alloc_doubles(np);
  p->state = alloc_doubles(2L * p->l * p->b);
  p->seq = alloc_doubles((long)p->c * p->b);
  Rng r;
  rng_seed(&r, 17);
  for (long i = 0; i < np; ++i) p->params[i] = 2 * rng_uniform(&r) - 1;
  for (long i = 0; i < 2L * p->l * p->b; ++i) p->state[i] = 2 * rng_uniform(&r) - 1;
  for (long i = 0; i < (long)p->c * p->b; ++i) p->seq[i] = 2 * rng_uniform(&r) - 1;
  return p;
}

void obj_describe(const Problem *p, char *buf, size_t n) {
  snprintf(buf, n, "l=%d c=%d b=%d", p->l, p->c, p->b);
}
long obj_deriv_len(const Problem *p) { return 8L * p->l * p->b + 3L * p->b; }
/* obj_hand records NREC values per cell and step, the states and the outputs. */
long obj_stored_bytes(const Problem *p) {
  long steps = p->c - 1, l = p->l, b = p->b;
  return 8L * (steps * l * 8 /* NREC */ * b + 2 * l * b + b + steps * b + 2 * l * b + 2 * b);
}
double obj_primal(Problem *p) {
  return lstm_primal(p->l, p->c, p->b, p->params, p->params + 8L * p->l * p->b, p->state, p->seq);
}

/* Hand-written reverse sweep: the forward pass records each cell's inputs and gates. */
enum { IN, HP, CP, F, IG, O, CH, TC, NREC };

void obj_hand(Problem *p, double *D) {
  int l = p->l, c = p->c, b = p->b;
  const double *mp = p->params, *ep = p->params + 8L * l * b;
  double *dmp = D, *dep = D + 8L * l * b;
  long steps = c - 1;
  double *rec = alloc_doubles(steps * l * NREC * b);
  double *s = alloc_doubles(2L * l * b), *x2 = alloc_doubles(b), *ys = alloc_doubles(steps * b);
  double *dh = alloc_doubles((long)l * b), *dc = alloc_doubles((long)l * b);
  double *din = alloc_doubles(b), *dy = alloc_doubles(b);
  memcpy(s, p->state, sizeof(double) * 2 * (size_t)l * (size_t)b);
  for (long i = 0; i < obj_deriv_len(p); ++i) D[i] = 0;
  for (long t = 0; t < steps; ++t) {
    for (int i = 0; i < b; ++i) x2[i] = p->seq[t * b + i] * ep[i];
    const double *in = x2;
    for (int j = 0; j < l; ++j) {
      const double *w = mp + 2L * j * 4 * b, *bias = w + 4 * b;
      double *h = s + 2 * j * b, *cl = s + (2 * j + 1) * b, *r = rec + (t * l + j) * NREC * b;
      for (int i = 0; i < b; ++i) {
        double f = sigmoid(in[i] * w[i] + bias[i]);
        double ig = sigmoid(h[i] * w[b + i] + bias[b + i]);
        double o = sigmoid(in[i] * w[2 * b + i] + bias[2 * b + i]);
        double ch = tanh(h[i] * w[3 * b + i] + bias[3 * b + i]);
        r[IN * b + i] = in[i];
        r[HP * b + i] = h[i];
        r[CP * b + i] = cl[i];
        r[F * b + i] = f;
        r[IG * b + i] = ig;
        r[O * b + i] = o;
        r[CH * b + i] = ch;
        cl[i] = cl[i] * f + ig * ch;
        r[TC * b + i] = tanh(cl[i]);
        h[i] = o * r[TC * b + i];
      }
      in = h;
    }
    for (int i = 0; i < b; ++i) ys[t * b + i] = in[i];
  }
  double scale = -1.0 / ((double)steps * b);
  for (long t = steps - 1; t >= 0; --t) {
    const double *hl = ys + t * b, *gold = p->seq + (t + 1) * b;
    double mx = -INFINITY, se = 0, sg = 0;
    for (int i = 0; i < b; ++i) {
      dy[i] = hl[i] * ep[b + i] + ep[2 * b + i];
      mx = dy[i] > mx ? dy[i] : mx;
    }
    for (int i = 0; i < b; ++i) se += (dy[i] = exp(dy[i] - mx));
    for (int i = 0; i < b; ++i) sg += gold[i];
    for (int i = 0; i < b; ++i) {
      double g = scale * (gold[i] - dy[i] / se * sg);
      dep[b + i] += g * hl[i];
      dep[2 * b + i] += g;
      din[i] = g * ep[b + i];
    }
    for (int j = l - 1; j >= 0; --j) {
      const double *w = mp + 2L * j * 4 * b, *r = rec + (t * l + j) * NREC * b;
      double *dw = dmp + 2L * j * 4 * b, *db = dw + 4 * b, *dhj = dh + j * b, *dcj = dc + j * b;
      for (int i = 0; i < b; ++i) {
        double in = r[IN * b + i], hp = r[HP * b + i], f = r[F * b + i], ig = r[IG * b + i];
        double o = r[O * b + i], ch = r[CH * b + i], tc = r[TC * b + i];
        double dhi = dhj[i] + din[i];
        double dcn = dcj[i] + dhi * o * (1 - tc * tc);
        double zf = dcn * r[CP * b + i] * f * (1 - f);
        double zi = dcn * ch * ig * (1 - ig);
        double zo = dhi * tc * o * (1 - o);
        double zc = dcn * ig * (1 - ch * ch);
        dw[i] += zf * in;
        db[i] += zf;
        dw[b + i] += zi * hp;
        db[b + i] += zi;
        dw[2 * b + i] += zo * in;
        db[2 * b + i] += zo;
        dw[3 * b + i] += zc * hp;
        db[3 * b + i] += zc;
        dcj[i] = dcn * f;
        dhj[i] = zi * w[b + i] + zc * w[3 * b + i];
        din[i] = zf * w[i] + zo * w[2 * b + i];
      }
    }
    for (int i = 0; i < b; ++i) dep[i] += din[i] * p->seq[t * b + i];
  }
  free(rec); free(s); free(x2); free(ys); free(dh); free(dc); free(din); free(dy);
}

static void eval(Problem *p, double *y) { y[0] = obj_primal(p); }
double obj_fd(Problem *p, double *D, long max_cols) {
  return fd_dense(eval, p, p->params, obj_deriv_len(p), 1, D, max_cols);
}
