// Hessian-vector products called many times in a loop (issue 14): the inner gradient's tape and
// its tangent live in the thread's shadowed tape arena (docs/design.md, *The tape's memory*), a
// primal and shadow buffer pair kept from one call to the next. Every H v is checked against
// central differences of the gradient along v (1e-6); after the largest size has run once, the
// arena must hand out the same pair every call (read directly under its reserved name), so the
// loop allocates nothing. Also: sizes that grow the pair; a forward-over-reverse derivative that
// runs another one while it holds the pair (re-entrancy through a function pointer); 3 threads
// each with its own pair; synthase_release_tape(); and the other nestings over the same gradient
// in loops (vector forward over reverse, reverse over reverse, reverse over forward, forward over
// forward over reverse), which keep their inner tapes private, against the same H v (1e-10).
// sanitizers/hvp_arena.test runs this program under ASan + LeakSanitizer (threads that exit
// holding their pair).
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm -pthread && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm -pthread && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm -pthread && %t3
// RUN: %synthase-cxx -x c++ -O0 -I%inputs %s -o %t4 -lm -pthread && %t4
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t5 -lm -pthread && %t5
#include "check.h"
#include <pthread.h>
#include <synthase/enzyme.h>

/* White-box view of this thread's shadowed arena. */
struct shadowed_arena {
  void *buf;
  unsigned long cap;
  unsigned long registered;
  void *shadow;
  void *pending;
};
#ifdef __cplusplus
extern "C"
#endif
    __thread struct shadowed_arena __synthase_tape_shadowed_arena_v1;
#define ARENA __synthase_tape_shadowed_arena_v1

/* A loop with a data-dependent branch: the reverse sweep needs t and the branch taken, so the
 * tape grows with n, past the 512-byte frame buffer. */
static double cost(const double *x, long n) {
  double s = 0;
  for (long i = 0; i < n; ++i) {
    double t = x[i] * x[(i + 1) % n];
    if (t > 0)
      s += sin(t) * x[i];
    else
      s += t * t * x[i];
  }
  return s;
}

static void grad(const double *x, double *g, long n) {
  for (long i = 0; i < n; ++i)
    g[i] = 0;
  __enzyme_autodiff((void *)cost, enzyme_dup, x, g, enzyme_const, n);
}

/* H v by forward over reverse; g receives the gradient. */
static void hvp(const double *x, const double *v, double *g, double *hv, long n) {
  __enzyme_fwddiff((void *)grad, enzyme_dup, x, v, enzyme_dup, g, hv, enzyme_const, n);
}

/* |x_i| >= 0.2, so |t| >= 0.04: no difference step moves t across the branch. */
static void fill(double *x, long n, double phase) {
  for (long i = 0; i < n; ++i)
    x[i] = (sin(0.37 * i + phase) > 0 ? 1 : -1) * (0.5 + 0.3 * cos(0.11 * i + phase));
}

/* Entries of hv that differ from central differences of the gradient along v. */
static int check_hvp(double *x, const double *v, const double *hv, long n) {
  double h = 1e-6, *x0 = (double *)malloc(sizeof(double) * n);
  double *gp = (double *)malloc(sizeof(double) * n), *gm = (double *)malloc(sizeof(double) * n);
  for (long i = 0; i < n; ++i)
    x0[i] = x[i], x[i] = x0[i] + h * v[i];
  grad(x, gp, n);
  for (long i = 0; i < n; ++i)
    x[i] = x0[i] - h * v[i];
  grad(x, gm, n);
  int bad = 0;
  for (long i = 0; i < n; ++i) {
    x[i] = x0[i];
    bad += check_relerr(hv[i], (gp[i] - gm[i]) / (2 * h)) > 1e-6;
  }
  free(x0);
  free(gp);
  free(gm);
  return bad;
}

/* One H v at n points, checked; returns the number of failed entries. */
static int one_hvp(long n, double phase) {
  double *x = (double *)malloc(sizeof(double) * n), *v = (double *)malloc(sizeof(double) * n);
  double *g = (double *)malloc(sizeof(double) * n), *hv = (double *)malloc(sizeof(double) * n);
  fill(x, n, phase);
  fill(v, n, 1.3 * phase + 0.5);
  hvp(x, v, g, hv, n);
  int bad = check_hvp(x, v, hv, n);
  double *want = (double *)malloc(sizeof(double) * n);
  grad(x, want, n);
  for (long i = 0; i < n; ++i) /* the tangent's primal is the gradient */
    bad += check_relerr(g[i], want[i]) > 1e-12;
  free(x);
  free(v);
  free(g);
  free(hv);
  free(want);
  return bad;
}

/* ---- a loop of H v: after the largest size, the same pair every call ---- */
static void hvp_in_a_loop(void) {
  synthase_release_tape();
  CHECK_TRUE(ARENA.buf == NULL && ARENA.shadow == NULL, "arena empty after release");
  CHECK_TRUE(one_hvp(4, 0.0) == 0, "n=4 (a tape in the frame buffer)");
  CHECK_TRUE(ARENA.buf == NULL, "a tape that fits the frame buffer stays off the heap");
  CHECK_TRUE(one_hvp(3000, 0.1) == 0, "n=3000, first call");
  void *buf = ARENA.buf, *shadow = ARENA.shadow;
  unsigned long cap = ARENA.cap;
  CHECK_TRUE(buf != NULL && shadow != NULL && buf != shadow && cap > 512,
             "the arena keeps the pair the first call grew (cap %lu)", cap);
  CHECK_TRUE(ARENA.registered == 1, "thread-exit release registered");
  long sizes[] = {3000, 10, 1000, 2999, 64, 3000};
  int bad = 0, moved = 0;
  for (int r = 0; r < 60; ++r) {
    bad += one_hvp(sizes[r % 6], 0.05 * r);
    moved += ARENA.buf != buf || ARENA.shadow != shadow || ARENA.cap != cap;
  }
  CHECK_TRUE(bad == 0, "60 Hessian-vector products against central differences: %d entries off", bad);
  CHECK_TRUE(moved == 0, "every call reused the cached pair (%d did not)", moved);
  CHECK_TRUE(ARENA.pending == NULL, "no shadow left pending");
  CHECK_TRUE(one_hvp(12000, 0.7) == 0, "n=12000 (grows the pair)");
  CHECK_TRUE(ARENA.cap > cap && ARENA.buf != NULL && ARENA.shadow != NULL, "the grown pair is kept (cap %lu)",
             ARENA.cap);
  synthase_release_tape();
  CHECK_TRUE(ARENA.buf == NULL && ARENA.shadow == NULL && ARENA.cap == 0, "synthase_release_tape frees the pair");
  synthase_release_tape(); /* twice is fine */
  CHECK_TRUE(one_hvp(2000, 0.9) == 0, "H v after the release");
}

/* ---- re-entrancy: a forward-over-reverse derivative run while another one holds the pair ---- */
#define SIDE_N 5000 /* larger than the outer tape in some rounds, smaller in others */
static double side_x[SIDE_N], side_v[SIDE_N], side_g[SIDE_N], side_hv[SIDE_N];
static long side_n;
static int side_calls;

/* Runs an H v of its own; returns an integer, so the derivative calls it as it is. */
static int side_hvp(void) {
  hvp(side_x, side_v, side_g, side_hv, side_n);
  ++side_calls;
  return 0;
}
static int (*volatile side_fn)(void) = side_hvp;

static double cost_with_side(const double *x, long n) { return cost(x, n) + (double)side_fn(); }
static void grad_with_side(const double *x, double *g, long n) {
  for (long i = 0; i < n; ++i)
    g[i] = 0;
  __enzyme_autodiff((void *)cost_with_side, enzyme_dup, x, g, enzyme_const, n);
}

static void reentrant(void) {
  long n = 2500;
  double *x = (double *)malloc(sizeof(double) * n), *v = (double *)malloc(sizeof(double) * n);
  double *g = (double *)malloc(sizeof(double) * n), *hv = (double *)malloc(sizeof(double) * n);
  double *want = (double *)malloc(sizeof(double) * n), *side_want = (double *)malloc(sizeof(double) * SIDE_N);
  long side_sizes[] = {SIDE_N, 300, 1200};
  for (int round = 0; round < 6; ++round) {
    if (round == 3)
      synthase_release_tape();
    side_n = side_sizes[round % 3];
    fill(side_x, side_n, 0.3 * round);
    fill(side_v, side_n, 0.2);
    fill(x, n, 0.1 * round);
    fill(v, n, 0.4);
    int before = side_calls;
    __enzyme_fwddiff((void *)grad_with_side, enzyme_dup, x, v, enzyme_dup, g, hv, enzyme_const, n);
    CHECK_TRUE(side_calls > before, "round %d: the inner H v ran inside the outer one", round);
    CHECK_TRUE(check_hvp(x, v, hv, n) == 0, "round %d: outer H v against central differences", round);
    for (long i = 0; i < side_n; ++i)
      side_want[i] = side_hv[i];
    CHECK_TRUE(check_hvp(side_x, side_v, side_want, side_n) == 0, "round %d: inner H v (n=%ld) against central differences",
               round, side_n);
    hvp(x, v, want, want, 0); /* a call with nothing to do is fine too */
    CHECK_TRUE(ARENA.buf != NULL && ARENA.shadow != NULL && ARENA.pending == NULL,
               "round %d: the arena holds one whole pair", round);
  }
  free(x);
  free(v);
  free(g);
  free(hv);
  free(want);
  free(side_want);
}

/* ---- 3 threads at once, each with its own pair, exiting while holding it ---- */
struct worker {
  int id, bad, moved;
};

static void *work(void *p) {
  struct worker *w = (struct worker *)p;
  long n = 1500 + 700 * w->id;
  w->bad += one_hvp(n, 0.1 * w->id);
  void *buf = ARENA.buf, *shadow = ARENA.shadow;
  for (int r = 0; r < 15; ++r) {
    w->bad += one_hvp(n - 97 * (r % 3), 0.1 * w->id + 0.05 * r);
    w->moved += ARENA.buf != buf || ARENA.shadow != shadow;
  }
  if (w->id == 1)
    synthase_release_tape(); /* one thread releases early; the others at exit */
  return NULL;
}

static void three_threads(void) {
  pthread_t t[3];
  struct worker w[3];
  for (int i = 0; i < 3; ++i) {
    w[i].id = i;
    w[i].bad = w[i].moved = 0;
    CHECK_TRUE(pthread_create(&t[i], NULL, work, &w[i]) == 0, "pthread_create %d", i);
  }
  for (int i = 0; i < 3; ++i) {
    pthread_join(t[i], NULL);
    CHECK_TRUE(w[i].bad == 0, "thread %d: %d entries off", i, w[i].bad);
    CHECK_TRUE(w[i].moved == 0, "thread %d: %d calls did not reuse the thread's pair", i, w[i].moved);
  }
}

/* ---- the other nestings of the same gradient, in loops ---- */
static double grad_dot(const double *x, const double *v, long n) {
  double *g = (double *)malloc(sizeof(double) * n), s = 0;
  grad(x, g, n);
  for (long i = 0; i < n; ++i)
    s += g[i] * v[i];
  free(g);
  return s;
}
static double jvp(const double *x, const double *v, long n) {
  return __enzyme_fwddiff((void *)cost, enzyme_dup, x, v, enzyme_const, n);
}
/* hv = H v with the gradient kept inside: a function whose tangent is a third derivative. */
static void hvp_only(const double *x, const double *v, double *hv, long n) {
  double *g = (double *)malloc(sizeof(double) * n);
  hvp(x, v, g, hv, n);
  free(g);
}

static void other_nestings(void) {
  long n = 1800;
  double *x = (double *)malloc(sizeof(double) * n), *v = (double *)malloc(sizeof(double) * n);
  double *w = (double *)malloc(sizeof(double) * n), *g = (double *)malloc(sizeof(double) * n);
  double *want = (double *)malloc(sizeof(double) * n), *out = (double *)malloc(sizeof(double) * n);
  double *g1 = (double *)malloc(sizeof(double) * n), *hw = (double *)malloc(sizeof(double) * n);
  double *dv = (double *)malloc(sizeof(double) * n), *hp = (double *)malloc(sizeof(double) * n);
  double *hm = (double *)malloc(sizeof(double) * n);
  for (int round = 0; round < 4; ++round) {
    fill(x, n, 0.2 * round);
    fill(v, n, 0.6);
    fill(w, n, 1.1 + round);
    hvp(x, v, g, want, n);
    int bad = 0;
    /* vector forward over reverse: H v and H w at once */
    __enzyme_fwddiff((void *)grad, enzyme_width, 2, enzyme_dup, x, v, w, enzyme_dup, g, out, hw, enzyme_const, n);
    for (long i = 0; i < n; ++i)
      bad += check_relerr(out[i], want[i]) > 1e-10;
    bad += check_hvp(x, w, hw, n);
    CHECK_TRUE(bad == 0, "round %d: vector forward over reverse: %d entries off", round, bad);
    /* reverse over reverse: the gradient of x -> <grad(x), v> */
    for (long i = 0; i < n; ++i)
      out[i] = 0;
    __enzyme_autodiff((void *)grad_dot, enzyme_dup, x, out, enzyme_const, v, enzyme_const, n);
    bad = 0;
    for (long i = 0; i < n; ++i)
      bad += check_relerr(out[i], want[i]) > 1e-10;
    CHECK_TRUE(bad == 0, "round %d: reverse over reverse: %d entries off", round, bad);
    /* reverse over forward: the gradient of x -> <grad(x), v> by a tangent */
    for (long i = 0; i < n; ++i)
      out[i] = dv[i] = 0;
    __enzyme_autodiff((void *)jvp, enzyme_dup, x, out, enzyme_dup, v, dv, enzyme_const, n);
    bad = 0;
    for (long i = 0; i < n; ++i)
      bad += check_relerr(out[i], want[i]) > 1e-10;
    CHECK_TRUE(bad == 0, "round %d: reverse over forward: %d entries off", round, bad);
    /* forward over forward over reverse: d/ds H(x + s w) v against central differences of H v */
    __enzyme_fwddiff((void *)hvp_only, enzyme_dup, x, w, enzyme_const, v, enzyme_dup, g1, out, enzyme_const, n);
    bad = 0;
    for (long i = 0; i < n; ++i)
      bad += check_relerr(g1[i], want[i]) > 1e-10;
    CHECK_TRUE(bad == 0, "round %d: forward over forward over reverse, its primal H v: %d entries off", round, bad);
    double h = 1e-5, *x0 = dv;
    for (long i = 0; i < n; ++i)
      x0[i] = x[i], x[i] = x0[i] + h * w[i];
    hvp_only(x, v, hp, n);
    for (long i = 0; i < n; ++i)
      x[i] = x0[i] - h * w[i];
    hvp_only(x, v, hm, n);
    bad = 0;
    for (long i = 0; i < n; ++i) {
      x[i] = x0[i];
      bad += check_relerr(out[i], (hp[i] - hm[i]) / (2 * h)) > 1e-6;
    }
    CHECK_TRUE(bad == 0, "round %d: forward over forward over reverse against central differences: %d entries off",
               round, bad);
  }
  free(x), free(v), free(w), free(g), free(want), free(out), free(g1), free(hw), free(dv), free(hp), free(hm);
}

int main(void) {
  hvp_in_a_loop();
  reentrant();
  three_threads();
  other_nestings();
  return check_report();
}
