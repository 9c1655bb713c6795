// The tape's per-thread arena (Reverse/TapeArena.cpp): a gradient called in a loop reuses one
// buffer; sizes that change between calls grow it; 4 threads at once each use their own; a
// gradient called while another one runs (inside a function being differentiated in reverse or
// forward mode, inlined or called through a pointer) gets its own buffer; synthase_release_tape()
// frees the cached one. Gradients are checked against the hand-written gradient of every entry
// (1e-12) and central differences of a few entries (1e-5 for the long sums, 1e-6 otherwise). The
// arena is read directly (its reserved name) to check that its buffer is reused and kept.
// sanitizers/tape_arena.test runs this program under ASan + LeakSanitizer (threads that exit).
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm -pthread && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm -pthread && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm -pthread && %t3
// RUN: %synthase-cxx -x c++ -O0 -I%inputs %s -o %t4 -lm -pthread && %t4
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t5 -lm -pthread && %t5
#include "check.h"
#include <pthread.h>
#include <synthase/enzyme.h>

/* White-box view of this thread's arena: { buffer, capacity, release registered }. */
struct tape_arena {
  void *buf;
  unsigned long cap;
  unsigned long registered;
};
#ifdef __cplusplus
extern "C"
#endif
    __thread struct tape_arena __synthase_tape_arena_v1;

/* The reverse sweep needs sin(x_i) (the derivative by x_{i+1}). A call is never recomputed,
 * unlike loads of x and cheap arithmetic on them, so every sine goes on the tape: 8 bytes per
 * step. */
static double chain(const double *x, long n) {
  double s = 0;
  for (long i = 0; i + 1 < n; ++i)
    s += x[i + 1] * sin(x[i]);
  return s;
}

/* Its gradient, by hand. */
static void chain_grad(const double *x, long n, double *g) {
  for (long i = 0; i < n; ++i) {
    g[i] = 0;
    if (i + 1 < n)
      g[i] += cos(x[i]) * x[i + 1];
    if (i > 0)
      g[i] += sin(x[i - 1]);
  }
}

/* The sum has up to 400000 terms: a larger step keeps the cancellation error (about
 * 1e-16 n / h) near 1e-7, with a truncation error of h^2. */
static double chain_fd(double *x, long n, long i) {
  double h = 1e-4, x0 = x[i];
  x[i] = x0 + h;
  double fp = chain(x, n);
  x[i] = x0 - h;
  double fm = chain(x, n);
  x[i] = x0;
  return (fp - fm) / (2 * h);
}

/* One gradient of chain at n points; returns the number of failed checks. Reports through the
 * shared counters only from the main thread. */
static int check_chain(long n, double phase, int report) {
  double *x = (double *)malloc(sizeof(double) * n), *dx = (double *)calloc(n, sizeof(double));
  double *want = (double *)malloc(sizeof(double) * n);
  for (long i = 0; i < n; ++i)
    x[i] = 0.75 + 0.25 * sin(0.37 * i + phase);
  __enzyme_autodiff((void *)chain, enzyme_dup, x, dx, enzyme_const, n);
  chain_grad(x, n, want);
  int bad = 0;
  for (long i = 0; i < n; ++i)
    bad += check_relerr(dx[i], want[i]) > 1e-12;
  long probe[3] = {0, n / 2, n - 1}; /* every entry is of order 1 */
  for (int k = 0; k < 3; ++k)
    bad += check_relerr(dx[probe[k]], chain_fd(x, n, probe[k])) > 1e-5;
  if (report)
    CHECK_TRUE(bad == 0, "chain gradient, n=%ld: %d entries off", n, bad);
  free(x);
  free(dx);
  free(want);
  return bad;
}

/* ---- a loop with changing sizes: the buffer grows between calls and is otherwise reused ---- */
static void sizes_in_a_loop(void) {
  synthase_release_tape();
  CHECK_TRUE(__synthase_tape_arena_v1.buf == NULL, "arena empty after release");
  check_chain(4, 0.0, 1); /* fits the 512-byte buffer in the caller's frame (UBSan builds too) */
  CHECK_TRUE(__synthase_tape_arena_v1.buf == NULL, "a small tape stays off the heap");
  check_chain(100000, 0.1, 1);
  void *buf = __synthase_tape_arena_v1.buf;
  unsigned long cap = __synthase_tape_arena_v1.cap;
  CHECK_TRUE(buf != NULL && cap >= 100000 * 8, "arena keeps the grown buffer (cap %lu)", cap);
  CHECK_TRUE(__synthase_tape_arena_v1.registered == 1, "thread-exit release registered");
  long sizes[] = {100000, 10, 3000, 100000, 5000};
  for (int r = 0; r < 5; ++r) {
    check_chain(sizes[r], 0.2 * r, 1);
    CHECK_TRUE(__synthase_tape_arena_v1.buf == buf && __synthase_tape_arena_v1.cap == cap,
               "call %d (n=%ld) reused the cached buffer", r, sizes[r]);
  }
  check_chain(400000, 0.3, 1); /* grows: the grown buffer is kept */
  CHECK_TRUE(__synthase_tape_arena_v1.cap > cap, "arena kept the larger buffer");
  check_chain(50, 0.4, 1);
  synthase_release_tape();
  CHECK_TRUE(__synthase_tape_arena_v1.buf == NULL && __synthase_tape_arena_v1.cap == 0,
             "synthase_release_tape frees the cached buffer");
  synthase_release_tape(); /* twice is fine */
  check_chain(30000, 0.5, 1); /* and gradients work after it */
}

/* ---- 4 threads at once, each growing and reusing its own buffer ---- */
struct worker {
  int id, failures;
};

static void *work(void *p) {
  struct worker *w = (struct worker *)p;
  for (int r = 0; r < 6; ++r) {
    long n = 2000 + 37000 * ((w->id + r) % 4);
    w->failures += check_chain(n, 0.1 * w->id + r, 0);
  }
  if (w->id == 1)
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

/* ---- re-entrancy: a gradient computed while another derivative runs ---- */
#define INNER_N 200 /* 1.6 KB of tape: the inner call needs a heap buffer of its own */
static double inner_x[INNER_N];

/* A weight that is itself a gradient: d chain / d x_1 at inner_x (constant data). */
static double inner_weight(void) {
  double g[INNER_N];
  memset(g, 0, sizeof g);
  __enzyme_autodiff((void *)chain, enzyme_dup, inner_x, g, enzyme_const, (long)INNER_N);
  return g[1];
}

/* outer(y) = sum_i sin(y_i * w * t_{i-1}) with t the running sum: its tape is used too. */
static double outer(const double *y, long n) {
  double w = inner_weight(), t = 1, s = 0;
  for (long i = 0; i < n; ++i) {
    s += sin(y[i] * w * t);
    t += 0.1 * y[i];
  }
  return s;
}

/* The same through a function pointer: the derivative of outer_opaque calls the original
 * inner_weight, whose own gradient call runs while outer_opaque's derivative holds the thread's
 * buffer. (In `outer`, inner_weight is inlined and differentiated along with it.) */
static double (*volatile weight_fn)(void) = inner_weight;
static double outer_opaque(const double *y, long n) {
  double w = weight_fn(), t = 1, s = 0;
  for (long i = 0; i < n; ++i) {
    s += sin(y[i] * w * t);
    t += 0.1 * y[i];
  }
  return s;
}

typedef double (*objective)(const double *, long);
static double outer_fd(objective f, double *y, long n, long i) {
  double h = 1e-6, y0 = y[i];
  y[i] = y0 + h;
  double fp = f(y, n);
  y[i] = y0 - h;
  double fm = f(y, n);
  y[i] = y0;
  return (fp - fm) / (2 * h);
}

static void nested(void) {
  for (int i = 0; i < INNER_N; ++i)
    inner_x[i] = 0.6 + 0.3 * cos(0.11 * i);
  double want_w[INNER_N];
  chain_grad(inner_x, INNER_N, want_w);
  CHECK_CLOSE(inner_weight(), want_w[1], 1e-12, "inner gradient alone");
  long n = 3000;
  double *y = (double *)malloc(sizeof(double) * n), *dy = (double *)malloc(sizeof(double) * n);
  for (long i = 0; i < n; ++i)
    y[i] = 0.01 * sin(0.5 * i);
  objective fs[2] = {outer, outer_opaque};
  for (int round = 0; round < 6; ++round) { /* an arena that is empty, then holding a buffer */
    objective f = fs[round % 2];
    const char *name = round % 2 ? "outer_opaque" : "outer";
    if (round == 4)
      synthase_release_tape();
    memset(dy, 0, sizeof(double) * n);
    if (f == outer)
      __enzyme_autodiff((void *)outer, enzyme_dup, y, dy, enzyme_const, n);
    else
      __enzyme_autodiff((void *)outer_opaque, enzyme_dup, y, dy, enzyme_const, n);
    for (long i = 0; i < n; i += n / 5)
      CHECK_CLOSE(dy[i], outer_fd(f, y, n, i), 1e-6, "round %d: reverse of %s, d/dy[%ld] vs FD", round, name, i);
    /* the larger of the two buffers (the outer call's) is the one kept */
    CHECK_TRUE(__synthase_tape_arena_v1.buf != NULL && __synthase_tape_arena_v1.cap >= (unsigned long)n * 8,
               "round %d: %s: the outer call's buffer is kept (cap %lu)", round, name, __synthase_tape_arena_v1.cap);
    /* forward mode over the same function: the inner gradient runs inside the tangent */
    double *v = (double *)malloc(sizeof(double) * n);
    for (long i = 0; i < n; ++i)
      v[i] = cos(0.3 * i);
    double tan = f == outer ? __enzyme_fwddiff((void *)outer, enzyme_dup, y, v, enzyme_const, n)
                            : __enzyme_fwddiff((void *)outer_opaque, enzyme_dup, y, v, enzyme_const, n);
    CHECK_CLOSE(tan, check_dot(dy, v, (int)n), 1e-10, "round %d: %s: forward and reverse agree", round, name);
    free(v);
    CHECK_CLOSE(inner_weight(), want_w[1], 1e-12, "round %d: inner gradient after nesting", round);
  }
  free(y);
  free(dy);
}

int main(void) {
  sizes_in_a_loop();
  four_threads();
  nested();
  return check_report();
}
