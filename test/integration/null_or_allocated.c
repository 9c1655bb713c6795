// A pointer that is null on one path and a fresh block on another, where the program tells the
// two apart: `n ? malloc(8) : NULL` tested with `if (c)`, a helper that returns NULL or a block,
// a recursive list builder ending in `return NULL` folded by a recursive walk, and an optional
// buffer `n > 0 ? calloc(n, 8) : NULL` whose null path computes something else. The derivative
// must take the primal's path (a block made in place of the null took the other one, silently).
// The same kept in a struct and tested there, or handed to a helper that tests it (f6, f7);
// an aligned_alloc'd block or null (f8).
// The empty-vector pattern (`n != 0 ? malloc(8n) : NULL`, only freed) still works too.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
// RUN: %synthase-cc -O2 -flto -fuse-ld=lld -I%inputs %s -o %t5 -lm && %t5
#include "check.h"
#include <stdlib.h>

// f1 = n ? 3 x0 x1 : 2 x0
double f1(const double *x, int n) {
  double *c = n ? (double *)malloc(sizeof(double)) : NULL;
  if (c) {
    *c = 3 * x[0] * x[1];
    double r = *c;
    free(c);
    return r;
  }
  return 2 * x[0];
}

__attribute__((noinline)) static double *cell_or_null(const double *x, int n) {
  if (n == 0)
    return NULL;
  double *c = (double *)malloc(sizeof(double));
  *c = x[0] * x[0];
  return c;
}
// f2 = n ? x0^2 + x1 : 5 x1
double f2(const double *x, int n) {
  double *c = cell_or_null(x, n);
  if (!c)
    return 5 * x[1];
  double r = *c + x[1];
  free(c);
  return r;
}

typedef struct Node {
  double v;
  struct Node *next;
} Node;
static Node *build(const double *x, int n) {
  if (n == 0)
    return NULL;
  Node *c = (Node *)malloc(sizeof(Node));
  c->v = x[0];
  c->next = build(x + 1, n - 1);
  return c;
}
static double fold(const Node *l, double a) { return l ? fold(l->next, 0.7 * a + l->v * l->v) : a; }
static void drop(Node *l) {
  while (l) {
    Node *n = l->next;
    free(l);
    l = n;
  }
}
// f3 = sum_i 0.7^(n-1-i) x_i^2 over the first n inputs
double f3(const double *x, int n) {
  Node *l = build(x, n);
  double r = fold(l, 0);
  drop(l);
  return r;
}

__attribute__((noinline)) static double *optional_buffer(int n) { return n > 0 ? (double *)calloc(n, sizeof(double)) : NULL; }
// f4 = sum over m < n of: m > 0 ? sum_{i<m} ((m+1) x_i)^2 : 5 x3
double f4(const double *x, int n) {
  double s = 0;
  for (int m = 0; m < n; m++) {
    double *b = optional_buffer(m);
    if (b) {
      for (int i = 0; i < m; i++)
        b[i] = x[i] * (m + 1);
      for (int i = 0; i < m; i++)
        s += b[i] * b[i];
      free(b);
    } else {
      s += 5 * x[3];
    }
  }
  return s;
}

// f5: a buffer that is null only when empty and only freed (std::vector's storage)
double f5(const double *x, int n) {
  double *b = n != 0 ? (double *)malloc(n * sizeof(double)) : NULL;
  double s = x[0];
  for (int i = 0; i < n; i++)
    b[i] = x[i] * x[i];
  for (int i = 0; i < n; i++)
    s += b[i] * x[i];
  if (b)
    free(b);
  return s;
}

// f6: the optional buffer kept in a struct and tested there (`if (w.buf)`)
typedef struct {
  double *buf;
  int n;
} Work;
__attribute__((noinline)) static double finish(const Work *w, const double *x) {
  if (!w->buf)
    return 4 * x[2];
  double s = 0;
  for (int i = 0; i < w->n; i++)
    s += w->buf[i] * x[i];
  return s;
}
double f6(const double *x, int n) {
  Work w = {n > 1 ? (double *)malloc(n * sizeof(double)) : NULL, n};
  if (w.buf)
    for (int i = 0; i < n; i++)
      w.buf[i] = x[i] * x[(i + 1) % n];
  double r = finish(&w, x);
  free(w.buf);
  return r;
}

// f7: the optional buffer handed to a helper that tests it
__attribute__((noinline)) static double fill_or(double *b, const double *x, int n) {
  if (!b)
    return x[0] * x[3];
  double s = 0;
  for (int i = 0; i < n; i++) {
    b[i] = 2 * x[i];
    s += b[i] * b[i];
  }
  return s;
}
double f7(const double *x, int n) {
  double *b = n != 0 ? (double *)malloc(n * sizeof(double)) : NULL;
  double r = fill_or(b, x, n);
  free(b);
  return r;
}

// f8: an aligned block or null, tested with `== NULL`: n > 0 ? sum_{i<n} x_i^2 : 7 x1
double f8(const double *x, int n) {
  double *c = n > 0 ? (double *)aligned_alloc(64, 64 * ((n * sizeof(double) + 63) / 64)) : NULL;
  if (c == NULL)
    return 7 * x[1];
  double s = 0;
  for (int i = 0; i < n; i++) {
    c[i] = x[i] * x[i];
    s += c[i];
  }
  free(c);
  return s;
}

static double analytic(int which, const double *x, int n, int k) {
  switch (which) {
  case 1: return n ? (k == 0 ? 3 * x[1] : k == 1 ? 3 * x[0] : 0) : (k == 0 ? 2 : 0);
  case 2: return n ? (k == 0 ? 2 * x[0] : k == 1 ? 1 : 0) : (k == 1 ? 5 : 0);
  case 3: return k < n ? 2 * x[k] * pow(0.7, n - 1 - k) : 0;
  case 4: {
    double d = 0;
    for (int m = 0; m < n; m++)
      d += m == 0 ? (k == 3 ? 5 : 0) : (k < m ? 2 * (m + 1) * (m + 1) * x[k] : 0);
    return d;
  }
  case 5: return (k == 0 ? 1 : 0) + (k < n ? 3 * x[k] * x[k] : 0);
  case 6: {
    // n > 1: sum_i x_i^2 x_{i+1}, indices mod n; else 4 x2
    if (n <= 1)
      return k == 2 ? 4 : 0;
    double d = 0;
    for (int i = 0; i < n; i++) {
      int j = (i + 1) % n;
      if (i == k)
        d += 2 * x[i] * x[j];
      if (j == k)
        d += x[i] * x[i];
    }
    return d;
  }
  case 8: return n == 0 ? (k == 1 ? 7 : 0) : (k < n ? 2 * x[k] : 0);
  default: return n == 0 ? (k == 0 ? x[3] : k == 3 ? x[0] : 0) : (k < n ? 8 * x[k] : 0);
  }
}

#define CHECK_ONE(W, F)                                                                                       \
  for (int n = 0; n <= 4; n++) {                                                                              \
    double g[4] = {0};                                                                                        \
    __enzyme_autodiff((void *)F, enzyme_dup, x, g, enzyme_const, n);                                          \
    for (int k = 0; k < 4; k++) {                                                                             \
      CHECK_CLOSE(g[k], analytic(W, x, n, k), 1e-12, "reverse df%d/dx%d (n=%d)", W, k, n);                     \
      double e[4] = {0};                                                                                      \
      e[k] = 1;                                                                                               \
      double t = __enzyme_fwddiff((void *)F, enzyme_dup, x, e, enzyme_const, n);                              \
      CHECK_CLOSE(t, g[k], 1e-12, "forward vs reverse df%d/dx%d (n=%d)", W, k, n);                            \
    }                                                                                                         \
  }

int main(void) {
  double x[4] = {0.3, -1.2, 0.7, 2.0};
  CHECK_ONE(1, f1)
  CHECK_ONE(2, f2)
  CHECK_ONE(3, f3)
  CHECK_ONE(4, f4)
  CHECK_ONE(5, f5)
  CHECK_ONE(6, f6)
  CHECK_ONE(7, f7)
  CHECK_ONE(8, f8)
  return check_report();
}
