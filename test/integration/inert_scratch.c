// Scratch memory that only ever holds constant data gets no shadow in reverse mode (a packed
// copy of a constant operand, as in Eigen's GEMM); memory that receives derivative data in any
// way keeps one. Each function mixes the two; a wrong call either way changes the gradient:
// - a constant matrix packed into a heap or stack buffer (chosen by size, one pointer) and read
//   by an out-of-line kernel together with an active vector;
// - a buffer filled with constants, then overwritten with active values (so it is not inert);
// - a buffer filled by an out-of-line callee with active values;
// - a buffer that holds a pointer to active data, and one holding a pointer to constant data;
// - an active array copied into a scratch block, and a constant block copied over active data;
// - active doubles moved as 64-bit integers (type punning through memcpy) into a scratch block;
// - a buffer filled through a function pointer, and by a recursive callee.
// Gradients against central differences, forward mode against reverse, at -O0, -O2, -O3.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
// Callees kept out of line, so that the inert argument of a differentiated call is exercised:
// RUN: env SYNTHASE_INLINE_CALLEE_LIMIT=1 %synthase-cc -O2 -I%inputs %s -o %t4 -lm && %t4
// RUN: env SYNTHASE_INLINE_CALLEE_LIMIT=1 %synthase-cc -O0 -I%inputs %s -o %t5 -lm && %t5
#include "check.h"
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

enum { R = 6, C = 5, N = C };
static double Amat[R * C + 2]; // passed as enzyme_const: constant data

// Reads the packed (constant) panel and the active vector: y = P x.
__attribute__((noinline)) static void kernel(const double *packed, const double *x, double *y, int r, int c) {
  for (int i = 0; i < r; i++) {
    double s = 0;
    for (int j = 0; j < c; j++)
      s += packed[i * c + j] * x[j];
    y[i] = s;
  }
}

__attribute__((noinline)) static void pack(double *dst, const double *src, int r, int c) {
  for (int j = 0; j < c; j++)
    for (int i = 0; i < r; i++)
      dst[i * c + j] = src[j * r + i] * 0.5;
}

static inline double packed_product(const double *x, const double *A, int n, int limit) {
  size_t bytes = sizeof(double) * R * n;
  int big = n > limit;
  double *panel = big ? (double *)malloc(bytes) : (double *)__builtin_alloca(bytes);
  double y[R];
  double s = 0;
  for (int pass = 0; pass < 2; pass++) {
    pack(panel, A + pass, R, n); // repacked: the kernel's reads differ per pass
    kernel(panel, x, y, R, n);
    for (int i = 0; i < R; i++)
      s += sin(y[i]) * (pass + 1);
  }
  if (big)
    free(panel);
  return s;
}

static double packed_heap(const double *x, const double *A, int n) { return packed_product(x, A, n, 3); }
static double packed_stack(const double *x, const double *A, int n) { return packed_product(x, A, n, 8); }

// Constants first, active values after: the second phase must carry derivatives.
static double refilled(const double *x, const double *A, int n) {
  double t[N];
  for (int i = 0; i < n; i++)
    t[i] = 0.25 * i;
  double s = 0;
  for (int i = 0; i < n; i++)
    s += t[i] * x[i];
  for (int i = 0; i < n; i++)
    t[i] = x[i] * x[i];
  for (int i = 0; i < n; i++)
    s += t[i] * t[(i + 1) % n];
  return s;
}

__attribute__((noinline)) static void fill_active(double *dst, const double *x, int n) {
  for (int i = 0; i < n; i++)
    dst[i] = exp(0.3 * x[i]);
}

static double filled_by_callee(const double *x, const double *A, int n) {
  double *t = (double *)malloc(sizeof(double) * n);
  fill_active(t, x, n);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += t[i] * A[i];
  free(t);
  return s;
}

struct view { const double *data; double scale; };

__attribute__((noinline)) static double dot_view(const struct view *v, const double *w, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += v->data[i] * w[i] * v->scale;
  return s;
}

static double pointer_holders(const double *x, const double *A, int n) {
  struct view active = {x, 2.0}, constant = {A, 0.5};
  return dot_view(&active, A + 5, n) + dot_view(&constant, x, n) * x[0];
}

static double copies(const double *x, const double *A, int n) {
  double a[N], b[N], k[N];
  for (int i = 0; i < n; i++)
    k[i] = A[i] + 1;
  for (int i = 0; i < n; i++)
    a[i] = x[i] * x[i];
  memcpy(b, a, sizeof(double) * n); // active data into scratch
  double s = 0;
  for (int i = 0; i < n; i++)
    s += b[i] * k[i];
  memcpy(a, k, sizeof(double) * n); // constants over active data
  for (int i = 0; i < n; i++)
    s += a[i] * x[i];
  return s;
}

static double punned(const double *x, const double *A, int n) {
  uint64_t bits[N];
  for (int i = 0; i < n; i++) {
    uint64_t u;
    memcpy(&u, &x[i], sizeof u);
    bits[i] = u;
  }
  double s = 0;
  for (int i = 0; i < n; i++) {
    double d;
    memcpy(&d, &bits[i], sizeof d);
    s += d * d * A[i];
  }
  return s;
}

typedef void (*filler)(double *, const double *, int);
static filler volatile fill_through = fill_active;

static double filled_indirectly(const double *x, const double *A, int n) {
  double t[N];
  fill_through(t, x, n);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += t[i] * A[i];
  return s;
}

__attribute__((noinline)) static void fill_recursive(double *dst, const double *x, int n) {
  if (n == 0)
    return;
  dst[n - 1] = x[n - 1] * x[0];
  fill_recursive(dst, x, n - 1);
}

static double filled_recursively(const double *x, const double *A, int n) {
  double t[N];
  fill_recursive(t, x, n);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += sin(t[i]) * A[i];
  return s;
}

typedef double (*fn)(const double *, const double *, int);
static double fd_of(const double *x, void *f) { return ((fn)f)(x, Amat, N); }

static void check(fn f, int n, const char *name) {
  double x[N], dx[N] = {0}, g[N], v[N];
  check_fill(x, N, -1, 1);
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, Amat, enzyme_const, n);
  check_fd_grad(fd_of, (void *)f, x, N, g);
  for (int k = 0; k < N; k++)
    CHECK_CLOSE(dx[k], g[k], 1e-6, "%s: reverse d/dx%d vs FD", name, k);
  check_fill(v, N, -1, 1);
  double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, v, enzyme_const, Amat, enzyme_const, n);
  CHECK_CLOSE(t, check_dot(g, v, N), 1e-6, "%s: forward vs FD", name);
  CHECK_CLOSE(t, check_dot(dx, v, N), 1e-11, "%s: forward vs reverse", name);
}

int main(void) {
  check_seed(43);
  check_fill(Amat, R * C + 2, -1, 1);
  check(packed_heap, N, "packed constant panel (heap)");
  check(packed_stack, N, "packed constant panel (stack)");
  check(refilled, N, "constants then active values");
  check(filled_by_callee, N, "filled by a callee");
  check(pointer_holders, N, "pointers to active and constant data");
  check(copies, N, "copies in and out of scratch");
  check(punned, N, "doubles moved as integers");
  check(filled_indirectly, N, "filled through a function pointer");
  check(filled_recursively, N, "filled by a recursive callee");
  return check_report();
}
