// Callees that stay out of line (recursive here; in Eigen, what the inlining budget leaves) and
// touch memory whose layout only their callers know. A copy helper that memcpy's a struct, or
// moves a pointer as one 8-byte integer, sees no field of it: the pointer fields' shadows must
// still be copied, and only the float fields' adjoints moved back. An allocation wrapper with
// integer arguments only returns a fresh block that needs a shadow. Before, reverse mode left
// the copied shadow pointers null (the struct was taken to hold doubles) and crashed, and the
// wrapper's block had no shadow. What callers pass tells the callee the layout; the integer
// fields a callee copies out of a struct that also holds doubles stay integers.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O0 -I%inputs %s -o %t4 -lm && %t4
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t5 -lm && %t5
#include "check.h"

typedef struct {
  const double *data;
  long n;
  double scale;
} View;

/* the struct copy: the callee only sees a memcpy of 24 bytes between its arguments */
static void copy_view(View *dst, const View *src, int depth) {
  if (depth > 0) {
    copy_view(dst, src, depth - 1);
    return;
  }
  memcpy(dst, src, sizeof *dst);
}

/* one pointer moved as 8 bytes (an i64 load and store once simplified) */
static void copy_pointer(void *dst, const void *src, int depth) {
  if (depth > 0) {
    copy_pointer(dst, src, depth - 1);
    return;
  }
  memcpy(dst, src, sizeof(double *));
}

/* an allocation wrapper: only an integer argument */
static double *new_buffer(long n, int depth) {
  if (depth > 0)
    return new_buffer(n, depth - 1);
  return (double *)malloc(n * sizeof(double));
}

typedef struct {
  double w;
  int n;
  char on;
  const double *p;
} Meta;

/* copies the integer fields only (an i32 and an i8 move next to a double and a pointer) */
static void copy_meta(Meta *dst, const Meta *src, int depth) {
  if (depth > 0) {
    copy_meta(dst, src, depth - 1);
    return;
  }
  dst->n = src->n;
  dst->on = src->on;
}

/* sum_i (s x_i)^2 sin(x_i) with s = x[0] + 1, through the three helpers above, plus
   n * x[1] * x[2] + x[3]^2 through copy_meta */
static double loss(const double *x, long n) {
  View a = {x, n, x[0] + 1.0}, b;
  copy_view(&b, &a, 2);
  double *tmp = new_buffer(b.n, 2);
  for (long i = 0; i < b.n; i++)
    tmp[i] = b.data[i] * b.scale;
  double *p;
  copy_pointer(&p, &tmp, 2);
  double s = 0;
  for (long i = 0; i < n; i++)
    s += p[i] * p[i] * sin(x[i]);
  free(tmp);
  Meta m = {x[1], 3, 1, x}, c = {x[2], 0, 0, x};
  copy_meta(&c, &m, 2);
  return s + m.w * c.w * c.n + (c.on ? c.p[3] * c.p[3] : 0.0);
}

static double loss_fd(const double *x, void *ctx) { return loss(x, 5); }

int main(void) {
  double x[5] = {0.3, -0.7, 1.1, 0.45, -1.3}, g[5] = {0}, fd[5];
  __enzyme_autodiff((void *)loss, enzyme_dup, x, g, enzyme_const, 5L);
  check_fd_grad(loss_fd, 0, x, 5, fd);
  for (int i = 0; i < 5; i++) {
    CHECK_CLOSE(g[i], fd[i], 1e-7, "reverse d/dx[%d]", i);
    double e[5] = {0};
    e[i] = 1;
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, x, e, enzyme_const, 5L);
    CHECK_CLOSE(t, g[i], 1e-12, "forward vs reverse [%d]", i);
  }
  return check_report();
}
