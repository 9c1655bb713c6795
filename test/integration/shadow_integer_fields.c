// Integer fields of a shadowed object that the differentiated function writes (a buffer's
// length, a counter): the shadow object keeps the primal's values, so a caller that walks its
// shadow by its own length sees every adjoint (Rust's Vec and C's {ptr, len} buffers), also
// when the count sits beside the doubles in one struct (it was zeroed as if it overwrote float
// data), and when the object is built in a local and copied out as a whole (`*out = local`: the
// copy's integer bytes were left at zero in the shadow). Gradients against central differences
// and the analytic form; forward mode (width 1 and 2) against reverse.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cc -O2 -flto -I%inputs %s -o %tl -lm && %tl
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

typedef struct { double buf[CAP]; size_t n; unsigned calls; _Bool dirty; } Inline;

// Records sin(x_i) * (n + 1) for each x_i into the struct's own array.
__attribute__((noinline)) static double record(Inline *h, const double *x, int m) {
  for (int i = 0; i < m; i++) {
    h->buf[h->n] = sin(x[i]) * (double)(h->n + 1);
    h->n += 1;
  }
  h->calls++;
  h->dirty = 1;
  double s = 0;
  for (size_t k = 0; k < h->n; k++) s += h->buf[k] * h->buf[k];
  return s;
}

typedef struct { double d[2]; } Pair;
Pair __enzyme_fwddiff_pair(void *, ...) __asm__("__enzyme_fwddiff");

static void check_inline(const double *x) {
  Inline h = {{1.0, 2.0}, 2, 0, 0}, dh = {{0}, 2, 0, 0};
  double dx[3] = {0};
  __enzyme_autodiff((void *)record, enzyme_dup, &h, &dh, enzyme_dup, x, dx, enzyme_const, 3);
  CHECK_TRUE(dh.n == 5 && dh.calls == 1 && dh.dirty, "inline: shadow n=%zu calls=%u dirty=%d", dh.n, dh.calls, dh.dirty);
  CHECK_CLOSE(dh.buf[0], 2.0, 1e-12, "inline: d/dbuf[0]");
  CHECK_CLOSE(dh.buf[1], 4.0, 1e-12, "inline: d/dbuf[1]");
  for (int i = 0; i < 3; i++) {
    double k = 3 + i; // the factor of x_i's entry
    CHECK_CLOSE(dx[i], 2 * sin(x[i]) * cos(x[i]) * k * k, 1e-12, "inline: d/dx[%d]", i);
  }
  Inline h2 = {{1.0, 2.0}, 2, 0, 0}, a = {{0}, 2, 0, 0}, b = {{0}, 2, 0, 0};
  double v0[3] = {1, 0, 0}, v1[3] = {0, 1, 0};
  Pair t = __enzyme_fwddiff_pair((void *)record, enzyme_width, 2, enzyme_dup, &h2, &a, &b, enzyme_dup, x, v0, v1,
                                 enzyme_const, 3);
  CHECK_TRUE(a.n == 5 && b.n == 5 && a.calls == 1 && b.dirty, "inline: tangent lanes n=%zu,%zu", a.n, b.n);
  CHECK_CLOSE(t.d[0], dx[0], 1e-12, "inline: forward lane 0 vs reverse");
  CHECK_CLOSE(t.d[1], dx[1], 1e-12, "inline: forward lane 1 vs reverse");
}

// Builds a {data, n, tag} record in a local and copies it out as a whole.
typedef struct { double *data; long n; long tag; } Rec;
__attribute__((noinline)) static void build(Rec *out, const double *x, long n) {
  Rec v;
  v.n = n;
  v.tag = 7;
  v.data = (double *)malloc(n * sizeof(double));
  for (long i = 0; i < n; i++) v.data[i] = x[i] * x[i];
  *out = v;
}
static double built(Rec *out, const double *x, long n) {
  build(out, x, n);
  double s = 0;
  for (long i = 0; i < out->n; i++) s += out->data[i] * (i + 1);
  return s;
}
static void check_whole_copy(void) {
  double x[3] = {0.5, -1, 2}, dx[3] = {0}, v[3] = {1, 0.5, -2};
  Rec o = {0, 0, 0}, d = {0, 0, 0};
  __enzyme_autodiff((void *)built, enzyme_dup, &o, &d, enzyme_dup, x, dx, enzyme_const, 3L);
  for (int i = 0; i < 3; i++) CHECK_CLOSE(dx[i], 2 * x[i] * (i + 1), 1e-12, "whole copy: d/dx[%d]", i);
  CHECK_TRUE(d.n == 3 && d.tag == 7, "whole copy: shadow fields n=%ld tag=%ld", d.n, d.tag);
  free(o.data);
  free(d.data);
  Rec o2 = {0, 0, 0}, d2 = {0, 0, 0};
  double t = __enzyme_fwddiff((void *)built, enzyme_dup, &o2, &d2, enzyme_dup, x, v, enzyme_const, 3L);
  CHECK_CLOSE(t, check_dot(dx, v, 3), 1e-12, "whole copy: forward vs reverse");
  CHECK_TRUE(d2.n == 3 && d2.tag == 7, "whole copy: tangent fields n=%ld tag=%ld", d2.n, d2.tag);
  free(o2.data);
  free(d2.data);
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
  check_inline(x);
  check_whole_copy();
  return check_report();
}
