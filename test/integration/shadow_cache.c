// The per-thread cache of reverse mode's shadow blocks (Reverse/ShadowCache.cpp): the shadows of
// malloc/calloc/aligned_alloc blocks and of local arrays, given back by the reverse sweep, are
// taken again by the next call. Checked: a gradient called in a loop with changing sizes stays
// right (every entry against the hand-written gradient, 1e-12, and a few against central
// differences, 1e-6) and, once sizes repeat, allocates no new shadow block (the cache is read
// through its reserved name); more shadows live at once than the cache has slots; 64-byte
// alignment is kept; 4 threads at once; a gradient with heap temporaries inside a function
// differentiated in reverse and forward mode (the inner call's cache becomes plain heap calls
// there); a shadow that forward mode returns, freed by the caller, next to cached blocks;
// synthase_release_tape() empties the cache. sanitizers/tape_arena.test runs it under ASan.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm -pthread && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm -pthread && %t2
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t5 -lm -pthread && %t5
#include "check.h"
#include <pthread.h>
#include <stdint.h>
#include <synthase/enzyme.h>

/* White-box view of this thread's cache: { blocks, their usable sizes, release registered }. */
#define SLOTS 16
struct shadow_cache {
  void *blocks[SLOTS];
  unsigned long sizes[SLOTS];
  unsigned long registered;
};
#ifdef __cplusplus
extern "C"
#endif
    __thread struct shadow_cache __synthase_shadow_cache_v1;

static int cached_blocks(void) {
  int k = 0;
  for (int i = 0; i < SLOTS; ++i)
    k += __synthase_shadow_cache_v1.blocks[i] != NULL;
  return k;
}

/* Every cached block is one the previous snapshot held: nothing new was allocated. */
static int same_blocks(void *const *before) {
  for (int i = 0; i < SLOTS; ++i) {
    void *p = __synthase_shadow_cache_v1.blocks[i];
    int found = p == NULL;
    for (int j = 0; j < SLOTS && !found; ++j)
      found = before[j] == p;
    if (!found)
      return 0;
  }
  return 1;
}

static volatile long misaligned; /* set by temps when the aligned block's shadow is not 64-aligned */

/* f(x) = sum_i a_i b_i c_i + sum_j loc_j^2 + sum_k t_k, with heap temporaries a, b, c of n doubles
 * (malloc, calloc, aligned_alloc(64)), a local array indexed at run time (it stays in memory), and
 * `steps` blocks of 2 doubles malloc'd in a loop and freed only at the end, in allocation order. */
static double temps(const double *x, long n, long steps) {
  double *a = (double *)malloc(sizeof(double) * n);
  double *b = (double *)calloc(n, sizeof(double));
  double *c = (double *)aligned_alloc(64, (sizeof(double) * n + 63) / 64 * 64);
  double loc[32];
  for (long i = 0; i < n; ++i) {
    a[i] = x[i] * x[i];
    b[i] += sin(x[i]);
    c[i] = x[(i + 1) % n] + 1;
  }
  for (int j = 0; j < 32; ++j)
    loc[j] = 0;
  for (long i = 0; i < n; ++i)
    loc[(i * 7) % 32] += x[i];
  double **t = (double **)malloc(sizeof(double *) * steps);
  for (long k = 0; k < steps; ++k) {
    t[k] = (double *)malloc(2 * sizeof(double));
    t[k][0] = x[k % n] * (k + 1);
    t[k][1] = t[k][0] * x[(k + 3) % n];
  }
  double s = 0;
  for (long i = 0; i < n; ++i)
    s += a[i] * b[i] * c[i];
  for (int j = 0; j < 32; ++j)
    s += loc[j] * loc[j];
  for (long k = 0; k < steps; ++k)
    s += t[k][1];
  if ((uintptr_t)c % 64)
    misaligned = 1;
  free(a); /* first allocated, first freed */
  free(b);
  free(c);
  for (long k = 0; k < steps; ++k)
    free(t[k]);
  free(t);
  return s;
}

static void temps_grad(const double *x, long n, long steps, double *g) {
  double loc[32] = {0};
  for (long i = 0; i < n; ++i)
    loc[(i * 7) % 32] += x[i];
  for (long i = 0; i < n; ++i)
    g[i] = 0;
  for (long i = 0; i < n; ++i) {
    double a = x[i] * x[i], b = sin(x[i]), c = x[(i + 1) % n] + 1;
    g[i] += 2 * x[i] * b * c + a * cos(x[i]) * c;
    g[(i + 1) % n] += a * b;
    g[i] += 2 * loc[(i * 7) % 32];
  }
  for (long k = 0; k < steps; ++k) {
    g[k % n] += (k + 1) * x[(k + 3) % n];
    g[(k + 3) % n] += x[k % n] * (k + 1);
  }
}

static double temps_fd(double *x, long n, long steps, long i) {
  double h = 1e-5, x0 = x[i];
  x[i] = x0 + h;
  double fp = temps(x, n, steps);
  x[i] = x0 - h;
  double fm = temps(x, n, steps);
  x[i] = x0;
  return (fp - fm) / (2 * h);
}

/* One gradient; returns the number of failed checks (reported from the main thread only). */
static int check_temps(long n, long steps, double phase, int report) {
  double *x = (double *)malloc(sizeof(double) * n), *dx = (double *)calloc(n, sizeof(double));
  double *want = (double *)malloc(sizeof(double) * n);
  for (long i = 0; i < n; ++i)
    x[i] = 0.5 + 0.25 * sin(0.37 * i + phase);
  __enzyme_autodiff((void *)temps, enzyme_dup, x, dx, enzyme_const, n, enzyme_const, steps);
  temps_grad(x, n, steps, want);
  int bad = 0;
  for (long i = 0; i < n; ++i)
    bad += check_relerr(dx[i], want[i]) > 1e-12;
  long probe[3] = {0, n / 2, n - 1};
  for (int k = 0; k < 3; ++k)
    bad += check_relerr(dx[probe[k]], temps_fd(x, n, steps, probe[k])) > 1e-6;
  if (report)
    CHECK_TRUE(bad == 0, "temps gradient, n=%ld steps=%ld: %d entries off", n, steps, bad);
  free(x);
  free(dx);
  free(want);
  return bad;
}

/* ---- a loop: changing sizes, then the same sizes again without a new shadow block ---- */
static void gradients_in_a_loop(void) {
  synthase_release_tape();
  CHECK_TRUE(cached_blocks() == 0, "cache empty after release");
  check_temps(300, 5, 0.0, 1);
  CHECK_TRUE(cached_blocks() > 0 && __synthase_shadow_cache_v1.registered == 1,
             "the shadows went to the cache (%d blocks), thread-exit release registered", cached_blocks());
  long sizes[] = {300, 20, 5000, 300, 7, 5000};
  for (int r = 0; r < 6; ++r) {
    check_temps(sizes[r], 5, 0.3 * r, 1);
    void *before[SLOTS];
    memcpy(before, __synthase_shadow_cache_v1.blocks, sizeof before);
    check_temps(sizes[r], 5, 0.3 * r + 0.1, 1); /* the same size again: every shadow is cached */
    CHECK_TRUE(same_blocks(before), "call %d (n=%ld) took its shadows from the cache", r, sizes[r]);
  }
  CHECK_TRUE(!misaligned, "aligned_alloc(64) blocks stay 64-aligned");
  check_temps(50, 40, 1.0, 1); /* 40 small shadows live at once: more than the 16 slots */
  CHECK_TRUE(cached_blocks() <= SLOTS, "the cache holds at most its slots");
  check_temps(50, 40, 1.1, 1);
  synthase_release_tape();
  CHECK_TRUE(cached_blocks() == 0, "synthase_release_tape empties the cache");
  check_temps(100, 3, 1.2, 1); /* and gradients work after it */
}

/* ---- 4 threads at once, each with its own cache, released at thread exit ---- */
struct worker {
  int id, failures;
};

static void *work(void *p) {
  struct worker *w = (struct worker *)p;
  for (int r = 0; r < 6; ++r)
    w->failures += check_temps(40 + 900 * ((w->id + r) % 3), 3 + r, 0.1 * w->id + r, 0);
  if (w->id == 2)
    synthase_release_tape(); /* one thread releases early; the others at exit */
  return NULL;
}

static void four_threads(void) {
  pthread_t t[4];
  struct worker w[4];
  for (int i = 0; i < 4; ++i) {
    w[i].id = i;
    w[i].failures = 0;
    CHECK_TRUE(pthread_create(&t[i], NULL, work, &w[i]) == 0, "pthread_create %d", i);
  }
  for (int i = 0; i < 4; ++i) {
    pthread_join(t[i], NULL);
    CHECK_TRUE(w[i].failures == 0, "thread %d: %d gradient entries off", i, w[i].failures);
  }
}

/* ---- a gradient with heap temporaries inside a differentiated function ---- */
#define INNER_N 24
static double inner_x[INNER_N];

/* d temps / d x_1 at inner_x (constant data): a weight computed by a gradient. */
static double inner_weight(void) {
  double g[INNER_N];
  memset(g, 0, sizeof g);
  __enzyme_autodiff((void *)temps, enzyme_dup, inner_x, g, enzyme_const, (long)INNER_N, enzyme_const, 6L);
  return g[1];
}

static double outer(const double *y, long n) {
  double w = inner_weight(), s = 0;
  double *u = (double *)malloc(sizeof(double) * n);
  for (long i = 0; i < n; ++i)
    u[i] = sin(y[i] * w);
  for (long i = 0; i < n; ++i)
    s += u[i] * u[(i + 1) % n];
  free(u);
  return s;
}

static double outer_fd(double *y, long n, long i) {
  double h = 1e-6, y0 = y[i];
  y[i] = y0 + h;
  double fp = outer(y, n);
  y[i] = y0 - h;
  double fm = outer(y, n);
  y[i] = y0;
  return (fp - fm) / (2 * h);
}

static void nested(void) {
  for (int i = 0; i < INNER_N; ++i)
    inner_x[i] = 0.4 + 0.2 * cos(0.3 * i);
  double want_w[INNER_N];
  temps_grad(inner_x, INNER_N, 6, want_w);
  CHECK_CLOSE(inner_weight(), want_w[1], 1e-12, "inner gradient alone");
  long n = 200;
  double y[200], dy[200], v[200];
  for (long i = 0; i < n; ++i) {
    y[i] = 0.02 * sin(0.5 * i);
    v[i] = cos(0.3 * i);
  }
  for (int round = 0; round < 3; ++round) {
    memset(dy, 0, sizeof dy);
    __enzyme_autodiff((void *)outer, enzyme_dup, y, dy, enzyme_const, n);
    for (long i = 0; i < n; i += n / 5)
      CHECK_CLOSE(dy[i], outer_fd(y, n, i), 1e-6, "round %d: reverse of outer, d/dy[%ld] vs FD", round, i);
    double tan = __enzyme_fwddiff((void *)outer, enzyme_dup, y, v, enzyme_const, n);
    CHECK_CLOSE(tan, check_dot(dy, v, (int)n), 1e-10, "round %d: forward and reverse of outer agree", round);
    CHECK_CLOSE(inner_weight(), want_w[1], 1e-12, "round %d: inner gradient after nesting", round);
  }
}

/* ---- a shadow the caller frees: forward mode hands out the shadow of a fresh block ---- */
static void squares(const double *x, long n, double **out) {
  double *p = (double *)malloc(sizeof(double) * n);
  for (long i = 0; i < n; ++i)
    p[i] = x[i] * x[i];
  *out = p;
}

static void caller_frees_shadow(void) {
  double x[40], v[40];
  for (int i = 0; i < 40; ++i) {
    x[i] = 0.1 * i - 1;
    v[i] = 1 + 0.01 * i;
  }
  for (int r = 0; r < 3; ++r) {
    double *p = NULL, *dp = NULL;
    __enzyme_fwddiff((void *)squares, enzyme_dup, x, v, enzyme_const, 40L, enzyme_dup, &p, &dp);
    int bad = 0;
    for (int i = 0; i < 40; ++i)
      bad += check_relerr(dp[i], 2 * x[i] * v[i]) > 1e-14 || p[i] != x[i] * x[i];
    CHECK_TRUE(bad == 0, "round %d: shadow of a fresh block: %d entries off", r, bad);
    check_temps(64, 4, 0.7 * r, 1); /* cached shadow blocks come and go meanwhile */
    free(p);
    free(dp); /* the caller's to free, with free() */
    check_temps(64, 4, 0.9 * r, 1);
  }
}

int main(void) {
  gradients_in_a_loop();
  four_threads();
  nested();
  caller_frees_shadow();
  return check_report();
}
