// Doubles that C code moves as 64-bit integers through a buffer of integers, then copies back as
// doubles: memcpy into a uint64_t, a uint64_t stack buffer copied out with a run-time length
// (before: the reverse of that copy took the buffer for integer data and zeroed the adjoints, a
// gradient of all zeros while forward mode was right), a constant-length copy, a heap buffer, a
// permutation through int64_t pointers memmoved back into the argument, a struct array swapped
// field by field as integers, a qsort-style generic sort swapping through a byte buffer, and a
// union. Reverse against central differences (1e-6) and forward against reverse (1e-10), for
// several lengths, at every optimization level.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cc -O2 -flto -fuse-ld=lld -I%inputs %s -o %t4 -lm && %t4
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t5 -lm && %t5
#include "check.h"
#include <stdint.h>

#define MAXN 64

/* the weights make every permutation visible in the gradient */
static double weighted(const double *y, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += (i + 1) * y[i] * y[i];
  return s;
}

/* reversed through a uint64_t stack buffer, copied out with a run-time length */
static double stack_runtime(double *x, int n) {
  uint64_t buf[MAXN];
  for (int i = 0; i < n; i++) {
    uint64_t u;
    memcpy(&u, &x[n - 1 - i], 8);
    buf[i] = u;
  }
  double y[MAXN];
  memcpy(y, buf, (size_t)n * 8);
  return weighted(y, n);
}

#define FIXED 16
static double stack_fixed(double *x, int n) {
  (void)n;
  uint64_t buf[FIXED];
  for (int i = 0; i < FIXED; i++) {
    uint64_t u;
    memcpy(&u, &x[FIXED - 1 - i], 8);
    buf[i] = u;
  }
  double y[FIXED];
  memcpy(y, buf, sizeof y);
  return weighted(y, FIXED);
}

static double heap_runtime(double *x, int n) {
  uint64_t *buf = (uint64_t *)malloc(n * 8);
  for (int i = 0; i < n; i++) {
    uint64_t u;
    memcpy(&u, &x[n - 1 - i], 8);
    buf[i] = u;
  }
  double *y = (double *)malloc(n * 8);
  memcpy(y, buf, n * 8);
  double s = weighted(y, n);
  free(buf);
  free(y);
  return s;
}

/* a permutation read through int64_t pointers, memmoved back over the argument */
static double permute_in_place(double *x, int n) {
  int64_t tmp[MAXN];
  const int64_t *xi = (const int64_t *)x;
  for (int i = 0; i < n; i++)
    tmp[i] = xi[(i * 7 + 3) % n];
  memmove(x, tmp, n * sizeof(double));
  return weighted(x, n);
}

typedef struct {
  double a, b;
} pair;
/* the two fields of each pair swapped as integers */
static double swap_fields(double *x, int n) {
  pair p[MAXN / 2];
  int m = n / 2;
  for (int i = 0; i < m; i++) {
    p[i].a = x[2 * i];
    p[i].b = x[2 * i + 1];
  }
  uint64_t t[MAXN];
  memcpy(t, p, m * sizeof(pair));
  for (int i = 0; i < m; i++) {
    uint64_t q = t[2 * i];
    t[2 * i] = t[2 * i + 1];
    t[2 * i + 1] = q;
  }
  memcpy(p, t, m * sizeof(pair));
  double s = 0;
  for (int i = 0; i < m; i++)
    s += (i + 1) * p[i].a * p[i].a + p[i].b;
  return s;
}

static void gswap(void *a, void *b, size_t sz) {
  unsigned char tmp[32];
  memcpy(tmp, a, sz);
  memcpy(a, b, sz);
  memcpy(b, tmp, sz);
}
static int cmpd(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}
static void gsort(void *base, size_t n, size_t sz, int (*cmp)(const void *, const void *)) {
  char *p = (char *)base;
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j + 1 < n - i; j++)
      if (cmp(p + j * sz, p + (j + 1) * sz) > 0)
        gswap(p + j * sz, p + (j + 1) * sz, sz);
}
static double generic_sort(double *x, int n) {
  double y[MAXN];
  memcpy(y, x, n * sizeof(double));
  gsort(y, n, sizeof(double), cmpd);
  return weighted(y, n);
}

typedef union {
  double d;
  uint64_t u;
} pun;
static double union_moves(double *x, int n) {
  pun a[MAXN], b[MAXN];
  for (int i = 0; i < n; i++)
    a[i].d = x[i];
  for (int i = 0; i < n; i++)
    b[n - 1 - i].u = a[i].u;
  double s = 0;
  for (int i = 0; i < n; i++)
    s += (i + 1) * b[i].d * b[i].d;
  return s;
}

typedef double (*objective)(double *, int);

static void check(const char *name, objective f, int n) {
  double x[MAXN], dx[MAXN] = {0}, xs[MAXN];
  for (int i = 0; i < n; i++)
    x[i] = 2 * sin(1.3 * i + 0.2);
  memcpy(xs, x, sizeof x);
  __enzyme_autodiff((void *)f, enzyme_dup, xs, dx, enzyme_const, n);
  for (int i = 0; i < n; i++) {
    double h = 1e-6, xp[MAXN], xm[MAXN], xc[MAXN], e[MAXN] = {0};
    memcpy(xp, x, sizeof x);
    memcpy(xm, x, sizeof x);
    xp[i] += h;
    xm[i] -= h;
    double fd = (f(xp, n) - f(xm, n)) / (2 * h);
    CHECK_CLOSE(dx[i], fd, 1e-6, "%s n=%d reverse d/dx[%d] vs FD", name, n, i);
    e[i] = 1;
    memcpy(xc, x, sizeof x);
    double fw = __enzyme_fwddiff((void *)f, enzyme_dup, xc, e, enzyme_const, n);
    CHECK_CLOSE(fw, dx[i], 1e-10, "%s n=%d forward vs reverse d/dx[%d]", name, n, i);
  }
}

int main(void) {
  static const int ns[] = {1, 2, 5, 17, 40};
  for (int k = 0; k < 5; k++) {
    int n = ns[k];
    check("uint64_t stack buffer, run-time copy", stack_runtime, n);
    check("uint64_t heap buffer", heap_runtime, n);
    check("int64_t permutation memmoved back", permute_in_place, n);
    if (n >= 2)
      check("pair fields swapped as integers", swap_fields, n);
    check("generic byte-buffer sort", generic_sort, n);
    check("union moves", union_moves, n);
  }
  check("uint64_t stack buffer, constant copy", stack_fixed, FIXED);
  return check_report();
}
