// A caller's heap buffer reallocated or freed inside the differentiated function: a buffer
// grown by realloc (several times, from one element too), contents moved by hand into a malloc'd
// block before the old one is freed, the same in split mode (__enzyme_augmentfwd/__enzyme_reverse)
// and in vector reverse mode (enzyme_width 2); a block freed and replaced by a new one (nothing
// copied: the gradient goes to the new block by index); and a function that frees the buffer it is
// given (its gradient stays in the caller's shadow, which is not freed). The buffer's count and
// capacity fields are kept in step in the shadow.
// Reverse against central finite differences or analytic values, forward against reverse.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O2 -flto -I%inputs %s -o %tl -lm && %tl
#include "check.h"

typedef struct { double *data; long n, cap; } Buf;

static void buf_push(Buf *b, double v) {
  if (b->n == b->cap) {
    b->cap = b->cap ? 2 * b->cap : 1;
    b->data = (double *)realloc(b->data, b->cap * sizeof(double));
  }
  b->data[b->n++] = v;
}

// grows the caller's buffer by realloc (several times) after reading its contents
static double grow(Buf *b, double a) {
  double s = 0;
  long n0 = b->n;
  for (long i = 0; i < n0; i++) s += b->data[i] * b->data[i];
  for (int k = 0; k < 9; k++) buf_push(b, sin(a * b->data[k % n0]) + s);
  double t = 0;
  for (long i = 0; i < b->n; i++) t += b->data[i] * (i + 1);
  return t;
}

// moves the caller's contents into a fresh malloc'd block by hand, frees the old one
static double rehome(Buf *b, double a) {
  double *nd = (double *)malloc(2 * b->n * sizeof(double));
  memcpy(nd, b->data, b->n * sizeof(double));
  free(b->data);
  b->data = nd;
  for (long i = 0; i < b->n; i++) nd[b->n + i] = nd[i] * a;
  b->n *= 2;
  b->cap = b->n;
  double t = 0;
  for (long i = 0; i < b->n; i++) t += nd[i] * nd[i] * (i % 3 + 1);
  return t;
}

// frees the caller's block after reading it, then gives the buffer a fresh one
static double replace(Buf *b, double a) {
  double s = 0;
  for (long i = 0; i < b->n; i++) s += b->data[i] * b->data[i] * (i + 1);
  free(b->data);
  b->data = (double *)malloc(b->n * sizeof(double));
  for (long i = 0; i < b->n; i++) b->data[i] = sin(s * a) * (i + 1);
  double t = s;
  for (long i = 0; i < b->n; i++) t += b->data[i] * b->data[i];
  return t;
}

// consumes (frees) the buffer it is given: the gradient stays where the caller put its shadow
static double consume(double *x, long n) {
  double t = 0;
  for (long i = 0; i < n; i++) t += x[i] * x[i] * x[i];
  free(x);
  return t;
}

extern void *__enzyme_augmentfwd(void *, ...);
extern double __enzyme_reverse(void *, ...);

// doubles its capacity when full (split-mode case)
static double grow_split(Buf *b, double a) {
  double s = 0;
  for (long i = 0; i < b->n; i++) s += b->data[i] * b->data[i];
  for (int k = 0; k < 5; k++) {
    if (b->n == b->cap) { b->cap *= 2; b->data = (double *)realloc(b->data, b->cap * sizeof(double)); }
    b->data[b->n++] = s * a * k;
  }
  double t = 0;
  for (long i = 0; i < b->n; i++) t += b->data[i] * (i + 1);
  return t;
}
// two outputs, for vector reverse mode (enzyme_width 2)
static void out2(Buf *b, double *y) {
  double s = 0;
  for (long i = 0; i < b->n; i++) s += b->data[i] * b->data[i];
  for (int k = 0; k < 5; k++) {
    if (b->n == b->cap) { b->cap *= 2; b->data = (double *)realloc(b->data, b->cap * sizeof(double)); }
    b->data[b->n++] = s * k;
  }
  double t = 0;
  for (long i = 0; i < b->n; i++) t += b->data[i] * (i + 1);
  y[0] = t; y[1] = t * b->data[0];
}
static Buf make(long n, int shadow) {
  Buf b = {(double *)malloc(n * sizeof(double)), n, n};
  for (long i = 0; i < n; i++) b.data[i] = shadow ? 0 : 0.4 + 0.3 * i * (i % 2 ? -1 : 1);
  return b;
}

static double (*fn)(Buf *, double);
static double value_at(const double *x, void *ctx) {
  long n = *(long *)ctx;
  Buf b = make(n, 0);
  for (long i = 0; i < n; i++) b.data[i] = x[i];
  double r = fn(&b, 0.6);
  free(b.data);
  return r;
}

static void check_buf(const char *name, double (*f)(Buf *, double), long n) {
  Buf b = make(n, 0), db = make(n, 1);
  double x[16], fd[16], g[16];
  for (long i = 0; i < n; i++) x[i] = b.data[i];
  __enzyme_autodiff((void *)f, enzyme_dup, &b, &db, enzyme_const, 0.6);
  CHECK_TRUE(db.n == b.n && db.cap == b.cap, "%s: shadow length %ld %ld vs %ld %ld", name, db.n, db.cap, b.n, b.cap);
  for (long i = 0; i < n; i++) g[i] = db.data[i];
  fn = f;
  check_fd_grad(value_at, &n, x, (int)n, fd);
  for (long i = 0; i < n; i++) {
    CHECK_CLOSE(g[i], fd[i], 1e-7, "%s: reverse d/data[%ld]", name, i);
    Buf w = make(n, 0), dw = make(n, 1);
    dw.data[i] = 1;
    double t = __enzyme_fwddiff((void *)f, enzyme_dup, &w, &dw, enzyme_const, 0.6);
    CHECK_CLOSE(t, g[i], 1e-10, "%s: forward vs reverse [%ld]", name, i);
    free(w.data);
    free(dw.data);
  }
  free(b.data);
  free(db.data);
}

int main(void) {
  for (int round = 0; round < 3; round++) {
    check_buf("realloc growth", grow, 3);
    check_buf("realloc growth, one element", grow, 1);
    check_buf("moved by hand", rehome, 5);
    check_buf("replaced after a free", replace, 4);
  }
  {
    enum { N = 4 };
    double *x = (double *)malloc(N * sizeof(double)), *dx = (double *)calloc(N, sizeof(double));
    double x0[N];
    for (int i = 0; i < N; i++) x0[i] = x[i] = 0.5 + 0.25 * i;
    __enzyme_autodiff((void *)consume, enzyme_dup, x, dx, enzyme_const, (long)N);
    for (int i = 0; i < N; i++)
      CHECK_CLOSE(dx[i], 3 * x0[i] * x0[i], 1e-12, "consumed buffer d/dx[%d]", i);
    free(dx);
  }
  {
    Buf b = {(double *)malloc(2 * sizeof(double)), 2, 2}, db = {(double *)calloc(2, sizeof(double)), 2, 2};
    b.data[0] = 0.5;
    b.data[1] = -1.5;
    void *tape = __enzyme_augmentfwd((void *)grow_split, enzyme_dup, &b, &db, enzyme_const, 0.7);
    __enzyme_reverse((void *)grow_split, enzyme_dup, &b, &db, enzyme_const, 0.7, 1.0, tape);
    // t = x0 + 2 x1 + sum_k (3+k) s a k with s = x0^2 + x1^2
    double c = 0;
    for (int k = 0; k < 5; k++)
      c += k * (3 + k);
    CHECK_CLOSE(db.data[0], 1 + 2 * 0.5 * 0.7 * c, 1e-12, "split mode d/dx0");
    CHECK_CLOSE(db.data[1], 2 + 2 * -1.5 * 0.7 * c, 1e-12, "split mode d/dx1");
    free(b.data);
    free(db.data);
  }
  {
    // enzyme_width 2: each lane's shadow buffer is grown and gets its own gradient
    Buf b = {(double *)malloc(2 * sizeof(double)), 2, 2};
    Buf d0 = {(double *)calloc(2, sizeof(double)), 2, 2}, d1 = {(double *)calloc(2, sizeof(double)), 2, 2};
    b.data[0] = 0.5;
    b.data[1] = -1.5;
    double y[2], s0[2] = {1, 0}, s1[2] = {0, 1};
    __enzyme_autodiff((void *)out2, enzyme_width, 2, enzyme_dup, &b, &d0, &d1, enzyme_dupnoneed, y, s0, s1);
    double c = 0;
    for (int k = 0; k < 5; k++)
      c += k * (3 + k);
    double x0 = 0.5, x1 = -1.5, t = x0 + 2 * x1 + (x0 * x0 + x1 * x1) * c;
    double dt0 = 1 + 2 * x0 * c, dt1 = 2 + 2 * x1 * c;
    CHECK_CLOSE(d0.data[0], dt0, 1e-12, "width 2 lane 0 d/dx0");
    CHECK_CLOSE(d0.data[1], dt1, 1e-12, "width 2 lane 0 d/dx1");
    CHECK_CLOSE(d1.data[0], dt0 * x0 + t, 1e-12, "width 2 lane 1 d/dx0");
    CHECK_CLOSE(d1.data[1], dt1 * x0, 1e-12, "width 2 lane 1 d/dx1");
    free(b.data);
    free(d0.data);
    free(d1.data);
  }
  return check_report();
}
