// Every C allocator of the allocator table inside differentiated code, in both modes: memalign,
// aligned_alloc (size is its second argument), posix_memalign (the block comes back through an
// argument), valloc, pvalloc, calloc (zero-filled), reallocarray, strdup/strndup (inactive
// copies), and user allocators registered the Enzyme way through __enzyme_allocation_like (a bump
// arena whose body must not be differentiated, and a pool whose deallocator takes the pool too).
// Reverse and forward vs. central finite differences, plus the dot-product test.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
#include "check.h"
#include <malloc.h>
#include <stdint.h>

#define N 13

/* The example from the soundness issue: memalign(64, 64) was taken for malloc(64) of the
 * alignment, so the shadow was 64 zero bytes of the wrong block and the adjoint was lost. */
static double use_memalign(const double *x, int n) {
  double *v = (double *)memalign(64, sizeof(double) * n);
  for (int i = 0; i < n; i++)
    v[i] = x[i] * x[i];
  double s = 0;
  for (int i = 0; i < n; i++)
    s += v[i] * x[i];
  free(v);
  return s;
}

static double use_aligned_alloc(const double *x, int n) {
  size_t bytes = (sizeof(double) * n + 63) & ~(size_t)63;
  double *v = (double *)aligned_alloc(64, bytes);
  for (int i = 0; i < n; i++)
    v[i] = sin(x[i]) * x[(i + 1) % n];
  double s = 0;
  for (int i = 0; i < n; i++)
    s += v[i] * v[(i + 3) % n];
  free(v);
  return s;
}

static double use_posix_memalign(const double *x, int n) {
  double *v;
  if (posix_memalign((void **)&v, 64, sizeof(double) * n))
    return 0;
  for (int i = 0; i < n; i++)
    v[i] = exp(0.3 * x[i]);
  double s = 0;
  for (int i = 1; i < n; i++)
    s += v[i] * v[i - 1] * x[i];
  free(v);
  return s;
}

static double use_valloc_pvalloc(const double *x, int n) {
  double *a = (double *)valloc(sizeof(double) * n);
  double *b = (double *)pvalloc(sizeof(double) * n);
  for (int i = 0; i < n; i++) {
    a[i] = x[i] * 1.5 + x[n - 1 - i];
    b[i] = a[i] * a[i];
  }
  double s = 0;
  for (int i = 0; i < n; i++)
    s += b[i] * x[i] - a[(i + 2) % n];
  free(b);
  free(a);
  return s;
}

/* calloc's zeros are part of the result: accumulate into it without initialising */
static double use_calloc(const double *x, int n) {
  double *acc = (double *)calloc(4, sizeof(double));
  for (int i = 0; i < n; i++)
    acc[i % 4] += x[i] * x[(i + 5) % n];
  double s = acc[0] * acc[1] + acc[2] * acc[3];
  free(acc);
  return s;
}

/* reallocarray grows the buffer (size = count * element size) while the values are active */
static double use_reallocarray(const double *x, int n) {
  int cap = 2, len = 0;
  double *buf = (double *)reallocarray(NULL, cap, sizeof(double));
  for (int i = 0; i < n; i++) {
    if (len == cap) {
      cap *= 2;
      buf = (double *)reallocarray(buf, cap, sizeof(double));
    }
    buf[len] = x[i] * x[i] + (len ? buf[len - 1] * 0.5 : 0.0);
    ++len;
  }
  double s = 0;
  for (int i = 0; i < len; i++)
    s += sqrt(buf[i] + 1.0);
  free(buf);
  return s;
}

/* float data grown one element at a time: the old blocks hold an odd number of floats, so the
 * adjoints moved back across each realloc must be moved as floats, not as doubles. The double
 * twin gives the finite-difference reference (float rounding would swamp a float FD). */
#define GROW_ONE_BY_ONE(T)                                                                         \
  static double grow_##T(const double *x, int n) {                                                 \
    T *buf = NULL;                                                                                 \
    for (int i = 0; i < n; i++) {                                                                  \
      buf = (T *)realloc(buf, sizeof(T) * (i + 1));                                                \
      buf[i] = (T)(x[i] * x[(i + 1) % n]) + (i ? buf[i - 1] * (T)0.5 : (T)0);                      \
    }                                                                                              \
    double s = 0;                                                                                  \
    for (int i = 0; i < n; i++)                                                                    \
      s += (double)buf[i] * buf[i];                                                                \
    free(buf);                                                                                     \
    return s;                                                                                      \
  }
GROW_ONE_BY_ONE(float)
GROW_ONE_BY_ONE(double)

/* strdup/strndup copy inactive bytes; the derivative only flows around them */
static double use_strdup(const double *x, int n) {
  char *name = strdup("weights");
  char *tag = strndup("abcdefgh", 3);
  double scale = (double)strlen(name) / (double)strlen(tag);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += scale * x[i] * x[i] + (tag[i % 3] == 'b' ? x[i] : 0.0);
  free(tag);
  free(name);
  return s;
}

/* ---- user allocators, registered the Enzyme way ---- */

typedef struct {
  char *base;
  size_t used, cap;
  int live;
} Arena;
static char arena_mem[1 << 16] __attribute__((aligned(64)));
Arena arena = {arena_mem, 0, sizeof arena_mem, 0};

/* A bump allocator: differentiating its body would see a pointer into a char buffer and find no
 * shadow for it. Registered, its calls are allocations: the shadow comes from the arena too. */
void *arena_alloc(Arena *a, size_t n) {
  size_t at = (a->used + 63) & ~(size_t)63;
  if (at + n > a->cap)
    abort();
  a->used = at + n;
  a->live++;
  return a->base + at;
}
void arena_free(void *p) {
  if ((char *)p < arena.base || (char *)p >= arena.base + arena.used)
    abort(); /* not from this arena */
  if (--arena.live == 0)
    arena.used = 0;
}
#ifdef __cplusplus
extern "C" {
#endif
void *__enzyme_allocation_like[4] = {(void *)arena_alloc, (void *)1, (void *)"free",
                                     (void *)arena_free};
#ifdef __cplusplus
}
#endif

static double use_arena(const double *x, int n) {
  double *t = (double *)arena_alloc(&arena, sizeof(double) * n);
  double *u = (double *)arena_alloc(&arena, sizeof(double) * n);
  for (int i = 0; i < n; i++)
    t[i] = cos(x[i]) * x[(i + 1) % n];
  for (int i = 0; i < n; i++)
    u[i] = t[i] * t[(i + 2) % n] + x[i];
  double s = 0;
  for (int i = 0; i < n; i++)
    s += u[i] * t[i];
  arena_free(u);
  arena_free(t);
  return s;
}

/* Enzyme's index form: the deallocator gets the pointer (-1) and the allocator's argument 0. */
typedef struct {
  int outstanding;
} Pool;
Pool pool = {0};
void *pool_alloc(Pool *p, size_t n) {
  p->outstanding++;
  return malloc(n);
}
void pool_free(void *ptr, Pool *p) {
  p->outstanding--;
  free(ptr);
}
#ifdef __cplusplus
extern "C" {
#endif
void *__enzyme_allocation_like_pool[4] = {(void *)pool_alloc, (void *)1, (void *)"-1,0",
                                          (void *)pool_free};
#ifdef __cplusplus
}
#endif

static double use_pool(const double *x, int n) {
  double *t = (double *)pool_alloc(&pool, sizeof(double) * n);
  for (int i = 0; i < n; i++)
    t[i] = x[i] * x[(i + 4) % n];
  double s = 0;
  for (int i = 0; i < n; i++)
    s += t[i] * sin(t[(i + 1) % n]);
  pool_free(t, &pool);
  return s;
}

#define FDW(fn) \
  static double fn##_fd(const double *x, void *c) { (void)c; return fn(x, N); }
FDW(use_memalign)
FDW(use_aligned_alloc)
FDW(use_posix_memalign)
FDW(use_valloc_pvalloc)
FDW(use_calloc)
FDW(use_reallocarray)
FDW(grow_double)
FDW(use_strdup)
FDW(use_arena)
FDW(use_pool)

#define CHECK_GRAD(fn, lo, hi)                                                                     \
  do {                                                                                             \
    double x[N], dx[N], g[N], v[N];                                                                \
    check_fill(x, N, lo, hi);                                                                      \
    for (int i = 0; i < N; ++i)                                                                    \
      dx[i] = 1.0;                                                                                 \
    __enzyme_autodiff((void *)fn, enzyme_dup, x, dx, enzyme_const, N);                             \
    check_fd_grad(fn##_fd, 0, x, N, g);                                                            \
    for (int i = 0; i < N; ++i)                                                                    \
      CHECK_CLOSE(dx[i] - 1.0, g[i], 1e-7, "rev %s d[%d] vs FD (+= into 1.0)", #fn, i);             \
    check_fill(v, N, -1, 1);                                                                       \
    double t_ = __enzyme_fwddiff((void *)fn, enzyme_dup, x, v, enzyme_const, N);                   \
    CHECK_CLOSE(t_, check_dot(g, v, N), 1e-7, "fwd %s vs FD", #fn);                                \
    for (int i = 0; i < N; ++i)                                                                    \
      dx[i] -= 1.0;                                                                                \
    CHECK_CLOSE(t_, check_dot(dx, v, N), 1e-12, "%s dot test", #fn);                               \
  } while (0)

int main(void) {
  check_seed(57);
  /* the numbers: x = 1..4, d/dx sum x^3 = 3x^2 */
  double x4[4] = {1, 2, 3, 4}, g4[4] = {0, 0, 0, 0};
  __enzyme_autodiff((void *)use_memalign, enzyme_dup, x4, g4, enzyme_const, 4);
  for (int i = 0; i < 4; ++i)
    CHECK_CLOSE(g4[i], 3 * x4[i] * x4[i], 1e-14, "memalign example d[%d]", i);

  for (int t = 0; t < 3; ++t) {
    CHECK_GRAD(use_memalign, -1.5, 1.5);
    CHECK_GRAD(use_aligned_alloc, -1.5, 1.5);
    CHECK_GRAD(use_posix_memalign, -1.5, 1.5);
    CHECK_GRAD(use_valloc_pvalloc, -1.5, 1.5);
    CHECK_GRAD(use_calloc, -1.5, 1.5);
    CHECK_GRAD(use_reallocarray, -1.5, 1.5);
    CHECK_GRAD(grow_double, -1.5, 1.5);
    {
      double x[N], dx[N], g[N], v[N];
      check_fill(x, N, -1.5, 1.5);
      memset(dx, 0, sizeof dx);
      __enzyme_autodiff((void *)grow_float, enzyme_dup, x, dx, enzyme_const, N);
      check_fd_grad(grow_double_fd, 0, x, N, g);
      for (int i = 0; i < N; ++i)
        CHECK_CLOSE(dx[i], g[i], 2e-5, "rev grow_float d[%d] vs FD of the double twin", i);
      check_fill(v, N, -1, 1);
      double tf = __enzyme_fwddiff((void *)grow_float, enzyme_dup, x, v, enzyme_const, N);
      CHECK_CLOSE(tf, check_dot(g, v, N), 2e-5, "fwd grow_float vs FD of the double twin");
      CHECK_CLOSE(tf, check_dot(dx, v, N), 1e-6, "grow_float dot test");
    }
    CHECK_GRAD(use_strdup, -1.5, 1.5);
    CHECK_GRAD(use_arena, -1.5, 1.5);
    /* every arena block, shadows included, went back through arena_free */
    CHECK_TRUE(arena.live == 0 && arena.used == 0, "arena: %d blocks still live", arena.live);
    CHECK_GRAD(use_pool, -1.5, 1.5);
    CHECK_TRUE(pool.outstanding == 0, "pool: %d blocks outstanding", pool.outstanding);
  }
  return check_report();
}
