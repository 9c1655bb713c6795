// Integer fields of a shadowed object that the differentiated function writes (a buffer's
// length, a counter): the shadow object keeps the primal's values, so a caller that walks its
// shadow by its own length sees every adjoint (Rust's Vec and C's {ptr, len} buffers). The
// gradient itself is checked against central differences.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
#include "check.h"

#define CAP 16

typedef struct { long cap; double *data; long len; int calls; } Buf;

// Appends tanh(1.5 x_i) for each x_i into room reserved by the caller; returns the sum of squares.
__attribute__((noinline)) static double append(Buf *b, const double *x, int n) {
  for (int i = 0; i < n; i++) b->data[b->len++] = tanh(1.5 * x[i]);
  b->calls += 1;
  double s = 0;
  for (long k = 0; k < b->len; k++) s += b->data[k] * b->data[k];
  return s;
}

static double h0[3] = {0.3, -0.7, 0.2};
static double value_of(const double *x, void *ctx) {
  double data[CAP];
  Buf b = {CAP, data, 0, 0};
  for (int k = 0; k < 3; k++) data[b.len++] = h0[k];
  return append(&b, x, *(int *)ctx);
}

int main(void) {
  int n = 5;
  double x[5] = {0.1, -0.4, 0.25, 0.6, -0.9}, dx[5] = {0}, fd[5];
  double data[CAP] = {0.3, -0.7, 0.2}, ddata[CAP] = {0};
  Buf b = {CAP, data, 3, 0}, db = {CAP, ddata, 3, 0};
  __enzyme_autodiff((void *)append, enzyme_dup, &b, &db, enzyme_dup, x, dx, enzyme_const, n);
  CHECK_TRUE(db.len == 8 && b.len == 8, "shadow length %ld follows the primal's %ld", db.len, b.len);
  CHECK_TRUE(db.calls == 1, "shadow counter %d", db.calls);
  check_fd_grad(value_of, &n, x, n, fd);
  for (int i = 0; i < n; i++) CHECK_CLOSE(dx[i], fd[i], 1e-6, "d/dx[%d]", i);
  for (int k = 0; k < 3; k++) CHECK_CLOSE(db.data[k], 2 * h0[k], 1e-12, "d/dhist[%d]", k);
  // Forward mode agrees with reverse along a direction.
  double xv[5] = {0.5, -1, 0.25, 2, 1}, d2[CAP] = {0};
  Buf b2 = {CAP, data, 3, 0}, db2 = {CAP, d2, 3, 0};
  for (int k = 0; k < 3; k++) data[k] = h0[k];
  double t = __enzyme_fwddiff((void *)append, enzyme_dup, &b2, &db2, enzyme_dup, x, xv, enzyme_const, n);
  CHECK_CLOSE(t, check_dot(dx, xv, n), 1e-10, "forward vs reverse");
  CHECK_TRUE(db2.len == 8, "forward: tangent length %ld follows the primal's", db2.len);
  return check_report();
}
