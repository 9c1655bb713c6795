// Aggregates holding pointers returned by callees that keep their own derivative (here recursive,
// as Rust's slice iterators are in a debug build past the inlining budget): a slice
// `{double *, long}`, an iterator's `next` that returns a null slice at the end and moves its
// state, a `{double, double *}` pair whose double is active too, two pointers (one read, one
// written through), and a nested struct. Before, the returned pointers had no shadow and every
// load through them counted as constant: the derivative was silently zero in both modes.
// Gradients against central differences, forward against reverse.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
#include "check.h"

#define N 6

typedef struct { double *p; long n; } Slice;
typedef struct { double *p; long left, k; } Chunks;
typedef struct { double w; const double *p; } Weighted;
typedef struct { const double *in; double *out; } Pair;
typedef struct { Slice s; int tag; } Tagged;

// Each callee recurses d times before doing its work, so it keeps its own derivative.
static Slice chunk(double *x, long i, int d) {
  if (d > 0)
    return chunk(x, i, d - 1);
  Slice s = {x + 2 * i, 2};
  return s;
}

static Slice next(Chunks *c, int d) {
  if (d > 0)
    return next(c, d - 1);
  Slice s = {0, 0};
  if (c->left >= c->k) {
    s.p = c->p;
    s.n = c->k;
    c->p += c->k;
    c->left -= c->k;
  }
  return s;
}

static Weighted weigh(const double *x, long i, int d) {
  if (d > 0)
    return weigh(x, i, d - 1);
  Weighted r = {sin(x[i]), x + (i + 1) % N};
  return r;
}

static Pair pick(const double *x, double *scratch, long i, int d) {
  if (d > 0)
    return pick(x, scratch, i, d - 1);
  Pair r = {x + i, scratch + i};
  return r;
}

static Tagged tagged(double *x, long i, int d) {
  if (d > 0)
    return tagged(x, i, d - 1);
  Tagged t = {{x + i, N - i}, (int)(i & 1)};
  return t;
}

static double slices(double *x, int n) {
  double s = 0;
  for (long i = 0; i < n / 2; i++) {
    Slice c = chunk(x, i, 1);
    s += c.p[0] * c.p[c.n - 1] * c.p[1];
  }
  return s;
}

static double iterate(double *x, int n) {
  double s = 0;
  Chunks it = {x, n, 3};
  for (;;) {
    Slice c = next(&it, 2);
    if (!c.p)
      break;
    s += c.p[0] * c.p[c.n - 1] + sin(c.p[1]);
  }
  return s;
}

static double weighted(double *x, int n) {
  double s = 0;
  for (long i = 0; i < n; i++) {
    Weighted r = weigh(x, i, 1);
    s += r.w * *r.p;
  }
  return s;
}

static double pairs(double *x, int n) {
  double scratch[N];
  for (long i = 0; i < n; i++) {
    Pair p = pick(x, scratch, i, 1);
    *p.out = *p.in * *p.in + 1.0;
  }
  double s = 0;
  for (long i = 0; i < n; i++)
    s += scratch[i] * x[(i + 2) % n];
  return s;
}

static double nested(double *x, int n) {
  double s = 0;
  for (long i = 0; i < n; i++) {
    Tagged t = tagged(x, i, 1);
    s += (t.tag ? 2.0 : 0.5) * t.s.p[0] * t.s.p[t.s.n - 1];
  }
  return s;
}

typedef double (*Objective)(double *, int);
static double fd_of(const double *x, void *f) {
  double c[N];
  memcpy(c, x, sizeof c);
  return ((Objective)f)(c, N);
}

static void check(Objective f, const char *name, double *x) {
  double dx[N] = {0}, g[N], v[N];
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N);
  check_fd_grad(fd_of, (void *)f, x, N, g);
  for (int i = 0; i < N; i++)
    CHECK_CLOSE(dx[i], g[i], 1e-7, "%s: reverse d/dx%d vs FD", name, i);
  check_fill(v, N, -1, 1);
  double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, v, enzyme_const, N);
  CHECK_CLOSE(t, check_dot(g, v, N), 1e-7, "%s: forward vs FD", name);
  CHECK_CLOSE(t, check_dot(dx, v, N), 1e-12, "%s: forward vs reverse", name);
}

int main(void) {
  double x[N];
  check_seed(29);
  check_fill(x, N, -1, 1);
  check(slices, "slice", x);
  check(iterate, "iterator", x);
  check(weighted, "double and pointer", x);
  check(pairs, "two pointers", x);
  check(nested, "nested struct", x);
  return check_report();
}
