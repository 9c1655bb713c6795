// Structs: a struct pointer with enzyme_dup (double fields active, int fields and pointers to
// const data inside), arrays of structs, nested structs, structs built and returned by value in
// helpers, a struct holding a pointer to active data (shadow struct holds the shadow pointer).
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -x c++ -O0 -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
#include "check.h"

typedef struct {
  double x, y;
} Vec2;
typedef struct {
  int id;       /* inactive */
  double mass;  /* active */
  Vec2 pos;     /* nested, active */
  float charge; /* active, float */
  int flags;
} Particle;

static Vec2 vsub(Vec2 a, Vec2 b) {
  Vec2 r = {a.x - b.x, a.y - b.y};
  return r;
}
static double vnorm(Vec2 a) { return sqrt(a.x * a.x + a.y * a.y); }

/* pairwise potential energy of n particles */
static double energy(const Particle *p, int n) {
  double e = 0;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) {
      double r = vnorm(vsub(p[i].pos, p[j].pos));
      double q = (double)p[i].charge * (double)p[j].charge;
      e += (p[i].flags & 1 ? 2.0 : 1.0) * p[i].mass * p[j].mass / r + q / (r * r);
    }
  return e;
}

/* struct containing a pointer to active data and a length */
typedef struct {
  double *data;
  int len;
  double scale;
} Buf;
static double buf_loss(const Buf *b) {
  double s = 0;
  for (int i = 0; i < b->len; ++i)
    s += b->scale * b->data[i] * b->data[i] * b->data[i];
  return s;
}

/* struct output: moments written into a struct */
typedef struct {
  double mean, var;
} Moments;
static void moments(const double *x, int n, Moments *m) {
  double s = 0, s2 = 0;
  for (int i = 0; i < n; ++i) {
    s += x[i];
    s2 += x[i] * x[i];
  }
  m->mean = s / n;
  m->var = s2 / n - m->mean * m->mean;
}

#define NP 4
static double energy_fd(const double *v, void *c) {
  Particle p[NP];
  memcpy(p, c, sizeof p);
  for (int i = 0; i < NP; ++i) {
    p[i].mass = v[3 * i];
    p[i].pos.x = v[3 * i + 1];
    p[i].pos.y = v[3 * i + 2];
  }
  return energy(p, NP);
}

int main(void) {
  check_seed(29);
  for (int t = 0; t < 4; ++t) {
    Particle p[NP], dp[NP];
    double v[3 * NP], g[3 * NP];
    memset(dp, 0, sizeof dp);
    for (int i = 0; i < NP; ++i) {
      p[i].id = 100 + i;
      p[i].mass = check_uniform(0.5, 2);
      p[i].pos.x = check_uniform(-2, 2) + 3 * i;
      p[i].pos.y = check_uniform(-2, 2);
      p[i].charge = (float)check_uniform(-1, 1);
      p[i].flags = i;
      dp[i].id = -7; /* shadows of integer fields are left alone */
      v[3 * i] = p[i].mass;
      v[3 * i + 1] = p[i].pos.x;
      v[3 * i + 2] = p[i].pos.y;
    }
    __enzyme_autodiff((void *)energy, enzyme_dup, p, dp, enzyme_const, NP);
    check_fd_grad(energy_fd, p, v, 3 * NP, g);
    for (int i = 0; i < NP; ++i) {
      CHECK_CLOSE(dp[i].mass, g[3 * i], 1e-7, "energy d mass[%d]", i);
      CHECK_CLOSE(dp[i].pos.x, g[3 * i + 1], 1e-7, "energy d pos.x[%d]", i);
      CHECK_CLOSE(dp[i].pos.y, g[3 * i + 2], 1e-7, "energy d pos.y[%d]", i);
      CHECK_TRUE(dp[i].id == -7, "integer field shadow untouched [%d]", i);
      double dq = 0; /* d/dcharge_i = sum_j charge_j / r^2 */
      for (int j = 0; j < NP; ++j)
        if (j != i) {
          double r = vnorm(vsub(p[i].pos, p[j].pos));
          dq += (double)p[j].charge / (r * r);
        }
      CHECK_CLOSE(dp[i].charge, dq, 1e-6, "energy d charge[%d] (float field)", i);
    }
    /* forward along the same random direction */
    Particle tp[NP];
    double tv[3 * NP];
    memset(tp, 0, sizeof tp);
    check_fill(tv, 3 * NP, -1, 1);
    for (int i = 0; i < NP; ++i) {
      tp[i].mass = tv[3 * i];
      tp[i].pos.x = tv[3 * i + 1];
      tp[i].pos.y = tv[3 * i + 2];
    }
    double tf = __enzyme_fwddiff((void *)energy, p, tp, enzyme_const, NP);
    CHECK_CLOSE(tf, check_dot(g, tv, 3 * NP), 1e-7, "fwd energy vs FD");
    double grev[3 * NP];
    for (int i = 0; i < NP; ++i) {
      grev[3 * i] = dp[i].mass;
      grev[3 * i + 1] = dp[i].pos.x;
      grev[3 * i + 2] = dp[i].pos.y;
    }
    CHECK_CLOSE(tf, check_dot(grev, tv, 3 * NP), 1e-12, "energy dot test");

    /* struct holding a pointer: the shadow struct holds the shadow pointer */
    double data[5], ddata[5];
    check_fill(data, 5, -1, 1);
    memset(ddata, 0, sizeof ddata);
    Buf b = {data, 5, 1.5}, db = {ddata, 0, 0.0};
    __enzyme_autodiff((void *)buf_loss, &b, &db);
    double dscale = 0;
    for (int i = 0; i < 5; ++i) {
      CHECK_CLOSE(ddata[i], 4.5 * data[i] * data[i], 1e-14, "buf d data[%d]", i);
      dscale += data[i] * data[i] * data[i];
    }
    CHECK_CLOSE(db.scale, dscale, 1e-14, "buf d scale");
    double tdata[5];
    check_fill(tdata, 5, -1, 1);
    Buf tb = {tdata, 0, 0.25};
    double want = 0.25 * dscale;
    for (int i = 0; i < 5; ++i)
      want += 4.5 * data[i] * data[i] * tdata[i];
    CHECK_CLOSE(__enzyme_fwddiff((void *)buf_loss, &b, &tb), want, 1e-14, "fwd buf_loss");

    /* struct output */
    double x[6], dx[6];
    check_fill(x, 6, -1, 1);
    Moments m, dm;
    double s = 0;
    for (int i = 0; i < 6; ++i)
      s += x[i];
    double mean = s / 6;
    dm.mean = 0.7;
    dm.var = -1.3;
    memset(dx, 0, sizeof dx);
    __enzyme_autodiff((void *)moments, x, dx, enzyme_const, 6, &m, &dm);
    for (int i = 0; i < 6; ++i)
      CHECK_CLOSE(dx[i], 0.7 / 6 - 1.3 * (2 * x[i] / 6 - 2 * mean / 6), 1e-14, "moments dx[%d]", i);
    CHECK_CLOSE(dm.mean, 0.0, 0, "moments d mean consumed");
    CHECK_CLOSE(dm.var, 0.0, 0, "moments d var consumed");
    double vx[6];
    check_fill(vx, 6, -1, 1);
    Moments tm;
    __enzyme_fwddiff((void *)moments, x, vx, 6, &m, &tm);
    double tmean = 0, tvar = 0;
    for (int i = 0; i < 6; ++i) {
      tmean += vx[i] / 6;
      tvar += 2 * x[i] * vx[i] / 6;
    }
    tvar -= 2 * mean * tmean;
    CHECK_CLOSE(tm.mean, tmean, 1e-14, "fwd moments mean");
    CHECK_CLOSE(tm.var, tvar, 1e-14, "fwd moments var");
    CHECK_CLOSE(m.mean, mean, 1e-15, "fwd moments primal mean");
  }
  return check_report();
}
