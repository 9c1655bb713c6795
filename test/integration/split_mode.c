// Split reverse mode with Enzyme's conventions: __enzyme_augmentfwd returns a tape (and the primal
// result when the declared struct has room for it), arbitrary user code runs, then
// __enzyme_reverse consumes and frees the tape. Also: enzyme_allocated / enzyme_tape caller
// storage sized by __enzyme_augmentsize (a tape that fits, and one that spills to the heap),
// enzyme_nofree, N tapes kept at once and reversed in reverse order (checkpointing a time
// stepper), and inputs overwritten between the two calls. Gradients are compared with central
// differences (1e-6) and with __enzyme_autodiff and __enzyme_fwddiff on the same function (1e-12).
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O0 -I%inputs %s -o %t4 -lm && %t4
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t5 -lm && %t5
#include "check.h"

#ifdef __cplusplus
extern "C" {
#endif
extern int enzyme_tape, enzyme_allocated, enzyme_nofree;
void *__enzyme_augmentfwd(void *, ...);
typedef struct {
  void *tape;
  double primal;
} aug_result;
aug_result __enzyme_augmentfwd_primal(void *, ...);
double __enzyme_augmentfwd_alloc(void *, ...); /* caller storage: only the primal comes back */
double __enzyme_reverse(void *, ...);
size_t __enzyme_augmentsize(void *, ...);
#ifdef __cplusplus
}
#endif

#define N 64

/* a recurrence: the tape holds one value per iteration (more than the inline bytes) */
static double chain(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) {
    if (x[i] > 0.3)
      s = 0.9 * s + sin(x[i] * (1 + 0.1 * s));
    else
      s = s + x[i] * x[i] * cos(s);
  }
  return s;
}

static double chain_fd(double *x, int n, int i) {
  const double h = 1e-6, x0 = x[i];
  x[i] = x0 + h;
  double fp = chain(x, n);
  x[i] = x0 - h;
  double fm = chain(x, n);
  x[i] = x0;
  return (fp - fm) / (2 * h);
}

/* Enzyme's allocatedtape example shape: in place, no return */
static void twist(double *x) {
  x[0] += x[1] * x[1];
  x[1] = -x[1];
}

/* unrelated work between the sweeps: a deep frame that fills its stack, and heap traffic */
static __attribute__((noinline)) double busy(int depth) {
  volatile double junk[256];
  for (int i = 0; i < 256; ++i)
    junk[i] = i * 1e-3 + depth;
  double *p = (double *)malloc(1000 * sizeof(double));
  for (int i = 0; i < 1000; ++i)
    p[i] = junk[i % 256];
  double r = p[999] + (depth > 0 ? busy(depth - 1) : 0);
  free(p);
  return r;
}

static void *start(double *x, double *dx) {
  return __enzyme_augmentfwd((void *)chain, enzyme_dup, x, dx, enzyme_const, N);
}

static void heap_tape(void) {
  double x[N], dx[N], want[N], ref[N];
  for (int i = 0; i < N; ++i) {
    x[i] = 0.5 + 0.4 * sin(0.7 * i);
    dx[i] = ref[i] = 0;
  }
  for (int i = 0; i < N; ++i)
    want[i] = chain_fd(x, N, i);
  __enzyme_autodiff((void *)chain, enzyme_dup, x, ref, enzyme_const, N);
  /* the tape is created in another frame, which is gone by the time the reverse runs */
  void *tape = start(x, dx);
  CHECK_TRUE(busy(8) > 0, "user code between the sweeps");
  /* the inputs are overwritten in between: the reverse sweep reads only its tape */
  double saved[N];
  memcpy(saved, x, sizeof x);
  for (int i = 0; i < N; ++i)
    x[i] = -1;
  __enzyme_reverse((void *)chain, enzyme_dup, x, dx, enzyme_const, N, 1.0, tape);
  memcpy(x, saved, sizeof x);
  for (int i = 0; i < N; ++i) {
    CHECK_CLOSE(dx[i], want[i], 1e-6, "split d chain/dx[%d] vs FD", i);
    CHECK_CLOSE(dx[i], ref[i], 1e-12, "split d chain/dx[%d] vs __enzyme_autodiff", i);
  }
  /* forward mode agrees on a direction */
  double v[N], dot = 0;
  for (int i = 0; i < N; ++i) {
    v[i] = cos(0.3 * i);
    dot += v[i] * dx[i];
  }
  double tan = __enzyme_fwddiff((void *)chain, enzyme_dup, x, v, enzyme_const, N);
  CHECK_CLOSE(tan, dot, 1e-12, "forward tangent vs <split gradient, v>");

  /* the primal result comes back with the tape; the seed scales the gradient */
  memset(dx, 0, sizeof dx);
  aug_result r = __enzyme_augmentfwd_primal((void *)chain, enzyme_dup, x, dx, enzyme_const, N);
  CHECK_CLOSE(r.primal, chain(x, N), 1e-15, "primal result of __enzyme_augmentfwd");
  busy(2);
  __enzyme_reverse((void *)chain, enzyme_dup, x, dx, enzyme_const, N, 2.5, r.tape);
  for (int i = 0; i < N; i += 7)
    CHECK_CLOSE(dx[i], 2.5 * ref[i], 1e-12, "seeded split gradient [%d]", i);

  /* enzyme_nofree: the caller frees the block */
  memset(dx, 0, sizeof dx);
  void *t2 = __enzyme_augmentfwd((void *)chain, enzyme_dup, x, dx, enzyme_const, N);
  __enzyme_reverse((void *)chain, enzyme_nofree, enzyme_dup, x, dx, enzyme_const, N, 1.0, t2);
  free(t2);
  CHECK_CLOSE(dx[5], ref[5], 1e-12, "split gradient with enzyme_nofree");

  /* Enzyme's shortest spelling: a pointer argument defaults to enzyme_dup */
  double y[2] = {1.2, 3.4}, dy[2] = {5.6, 7.8};
  void *t3 = __enzyme_augmentfwd((void *)twist, y, dy);
  busy(1);
  __enzyme_reverse((void *)twist, y, dy, t3);
  CHECK_CLOSE(y[0], 1.2 + 3.4 * 3.4, 1e-15, "twist primal");
  CHECK_CLOSE(dy[0], 5.6, 1e-15, "twist adjoint [0]");
  CHECK_CLOSE(dy[1], 5.6 * 2 * 3.4 - 7.8, 1e-15, "twist adjoint [1]");
}

/* caller storage sized by __enzyme_augmentsize */
static void allocated_tape(void) {
  size_t small = __enzyme_augmentsize((void *)twist, enzyme_dup);
  CHECK_TRUE(small >= 32 && small <= 64, "augmentsize of twist: %zu bytes", small);
  {
    char storage[64 + 1];
    double y[2] = {1.2, 3.4}, dy[2] = {5.6, 7.8};
    /* deliberately misaligned storage */
    __enzyme_augmentfwd((void *)twist, enzyme_allocated, 64, enzyme_tape, storage + 1, enzyme_dup, y, dy);
    busy(3);
    __enzyme_reverse((void *)twist, enzyme_allocated, 64, enzyme_tape, storage + 1, enzyme_dup, y, dy);
    CHECK_CLOSE(dy[0], 5.6, 1e-15, "allocated twist adjoint [0]");
    CHECK_CLOSE(dy[1], 5.6 * 2 * 3.4 - 7.8, 1e-15, "allocated twist adjoint [1]");
  }
  size_t big = __enzyme_augmentsize((void *)chain, enzyme_dup, enzyme_const);
  CHECK_TRUE(big >= 32, "augmentsize of chain: %zu bytes", big);
  double x[N], dx[N], ref[N];
  for (int i = 0; i < N; ++i) {
    x[i] = 0.5 + 0.4 * cos(0.9 * i);
    dx[i] = ref[i] = 0;
  }
  __enzyme_autodiff((void *)chain, enzyme_dup, x, ref, enzyme_const, N);
  /* the loop's tape outgrows the storage and continues on the heap; the reverse call frees it */
  void *storage = malloc(1024);
  double p = __enzyme_augmentfwd_alloc((void *)chain, enzyme_allocated, 1024, enzyme_tape, storage, enzyme_dup, x, dx,
                                       enzyme_const, N);
  CHECK_CLOSE(p, chain(x, N), 1e-15, "primal through caller storage");
  busy(4);
  __enzyme_reverse((void *)chain, enzyme_allocated, 1024, enzyme_tape, storage, enzyme_dup, x, dx, enzyme_const, N, 1.0);
  free(storage);
  for (int i = 0; i < N; i += 5)
    CHECK_CLOSE(dx[i], ref[i], 1e-12, "allocated chain gradient [%d] vs __enzyme_autodiff", i);
}

/* ---- checkpointing: N steps forward keeping every tape, then reversed in reverse order ---- */
#define STEPS 12
#define DIM 4
static void step(double *u, double dt) {
  double t[DIM];
  for (int i = 0; i < DIM; ++i)
    t[i] = u[(i + 1) % DIM] * u[(i + 3) % DIM];
  for (int i = 0; i < DIM; ++i)
    u[i] += dt * (sin(t[i]) - 0.5 * u[i]);
}
static double loss(const double *u0) {
  double u[DIM];
  memcpy(u, u0, sizeof u);
  for (int k = 0; k < STEPS; ++k)
    step(u, 0.1);
  double s = 0;
  for (int i = 0; i < DIM; ++i)
    s += u[i] * u[i] * (i + 1);
  return s;
}

static void checkpointing(void) {
  double u0[DIM] = {0.3, -0.8, 1.1, 0.5}, u[DIM], du[DIM];
  memcpy(u, u0, sizeof u);
  memset(du, 0, sizeof du);
  void *tapes[STEPS];
  for (int k = 0; k < STEPS; ++k)
    tapes[k] = __enzyme_augmentfwd((void *)step, enzyme_dup, u, du, enzyme_const, 0.1);
  busy(2);
  for (int i = 0; i < DIM; ++i)
    du[i] = 2 * u[i] * (i + 1); /* adjoint of the final state */
  for (int k = STEPS - 1; k >= 0; --k)
    __enzyme_reverse((void *)step, enzyme_dup, u, du, enzyme_const, 0.1, tapes[k]);
  double g[DIM] = {0};
  __enzyme_autodiff((void *)loss, enzyme_dup, u0, g);
  for (int i = 0; i < DIM; ++i) {
    double up[DIM], um[DIM];
    memcpy(up, u0, sizeof up);
    memcpy(um, u0, sizeof um);
    up[i] += 1e-6;
    um[i] -= 1e-6;
    CHECK_CLOSE(du[i], (loss(up) - loss(um)) / 2e-6, 1e-6, "checkpointed gradient [%d] vs FD", i);
    CHECK_CLOSE(du[i], g[i], 1e-12, "checkpointed gradient [%d] vs __enzyme_autodiff", i);
  }
}

int main(void) {
  heap_tape();
  allocated_tape();
  checkpointing();
  return check_report();
}
