// qsort and bsearch with a user comparator on active data: doubles sorted, then a weighted sum
// of the sorted values; structs sorted by a double key, carrying a second double along; a
// bsearch whose result is read. Forward applies the permutation to the shadow, reverse sends
// each adjoint back to the element's original position. Against analytic values (the gradient
// of sum_k w_k x_(k) is w at each element's rank) and central differences; both modes agree.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -x c++ -O0 -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
// RUN: %synthase-cxx -x c++ -O3 -march=native -I%inputs %s -o %t5 -lm && %t5
#include "check.h"

#define N 9
static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}
static double weighted_sorted(double *x, int n) {
  qsort(x, n, sizeof(double), by_value);
  double s = 0;
  for (int i = 0; i < n; i++) s += (i + 1) * x[i] * x[i];
  return s;
}

typedef struct { double key; int id; double mass; } item;
static int by_key(const void *a, const void *b) {
  double x = ((const item *)a)->key, y = ((const item *)b)->key;
  return (x > y) - (x < y);
}
static double items_sorted(item *it, int n) {
  qsort(it, n, sizeof(item), by_key);
  double s = 0;
  for (int i = 0; i < n; i++) s += (i + 1) * it[i].mass * sin(it[i].key) + it[i].id;
  return s;
}

/* Sorted copy, then the element bsearch finds scaled by the found position's neighbour. */
static double search(const double *x, int n, double probe_key) {
  double *c = (double *)malloc(sizeof(double) * n);
  for (int i = 0; i < n; i++) c[i] = x[i] * x[i];
  qsort(c, n, sizeof(double), by_value);
  double probe = probe_key;
  double *hit = (double *)bsearch(&probe, c, n, sizeof(double), by_value);
  double r = hit ? *hit * hit[1] : 0;
  free(c);
  return r;
}

static double ws_fd(const double *x, void *c) {
  double t[N];
  memcpy(t, x, sizeof t);
  (void)c;
  return weighted_sorted(t, N);
}

int main(void) {
  double x0[N], x[N], dx[N] = {0};
  check_seed(5);
  for (int i = 0; i < N; i++) x0[i] = x[i] = check_uniform(-2, 2);
  __enzyme_autodiff((void *)weighted_sorted, x, dx, N);
  double g[N];
  check_fd_grad(ws_fd, NULL, x0, N, g);
  for (int i = 0; i < N; i++) {
    int rank = 0;
    for (int j = 0; j < N; j++) rank += x0[j] < x0[i];
    CHECK_CLOSE(dx[i], 2.0 * (rank + 1) * x0[i], 1e-12, "qsort doubles: d/dx[%d] analytic", i);
    CHECK_CLOSE(dx[i], g[i], 1e-6, "qsort doubles: d/dx[%d] vs FD", i);
  }
  double v[N], dot = 0, xs[N], tv[N];
  for (int i = 0; i < N; i++) v[i] = check_uniform(-1, 1), dot += v[i] * dx[i], xs[i] = x0[i], tv[i] = v[i];
  double t = __enzyme_fwddiff((void *)weighted_sorted, xs, tv, N);
  CHECK_CLOSE(t, dot, 1e-12, "qsort doubles: forward = <grad, v>");

  item it[N], dit[N], it0[N];
  for (int i = 0; i < N; i++) {
    it[i].key = check_uniform(-1, 1);
    it[i].id = i;
    it[i].mass = check_uniform(0.5, 2);
    dit[i].key = dit[i].mass = 0;
    dit[i].id = 0;
    it0[i] = it[i];
  }
  __enzyme_autodiff((void *)items_sorted, it, dit, N);
  for (int i = 0; i < N; i++) {
    int rank = 0;
    for (int j = 0; j < N; j++) rank += it0[j].key < it0[i].key;
    CHECK_CLOSE(dit[i].mass, (rank + 1) * sin(it0[i].key), 1e-12, "qsort structs: d/dmass[%d]", i);
    CHECK_CLOSE(dit[i].key, (rank + 1) * it0[i].mass * cos(it0[i].key), 1e-12, "qsort structs: d/dkey[%d]", i);
  }
  item ti[N];
  double dot2 = 0;
  for (int i = 0; i < N; i++) {
    it[i] = it0[i];
    ti[i].key = check_uniform(-1, 1), ti[i].mass = check_uniform(-1, 1), ti[i].id = 0;
    dot2 += ti[i].key * dit[i].key + ti[i].mass * dit[i].mass;
  }
  double t2 = __enzyme_fwddiff((void *)items_sorted, it, ti, N);
  CHECK_CLOSE(t2, dot2, 1e-12, "qsort structs: forward = <grad, v>");

  /* bsearch: probe the smallest square, which is in the sorted copy */
  int p = 0;
  for (int j = 1; j < N; j++)
    if (x0[j] * x0[j] < x0[p] * x0[p]) p = j;
  double probe = x0[p] * x0[p], dxs[N] = {0};
  int rank = 0;
  for (int j = 0; j < N; j++) rank += x0[j] * x0[j] < probe;
  __enzyme_autodiff((void *)search, enzyme_dup, x0, dxs, enzyme_const, N, enzyme_const, probe);
  int next = -1; /* the element just above in sorted order */
  for (int j = 0; j < N; j++)
    if (x0[j] * x0[j] > probe && (next < 0 || x0[j] * x0[j] < x0[next] * x0[next])) next = j;
  CHECK_TRUE(rank == 0 && next >= 0, "probe is the smallest");
  if (next >= 0) {
    CHECK_CLOSE(dxs[p], 2 * x0[p] * x0[next] * x0[next], 1e-12, "bsearch: d/dx[p]");
    CHECK_CLOSE(dxs[next], 2 * x0[next] * x0[p] * x0[p], 1e-12, "bsearch: d/dx[next]");
  }
  double tb[N] = {0};
  tb[p] = 1;
  double t3 = __enzyme_fwddiff((void *)search, enzyme_dup, x0, tb, enzyme_const, N, enzyme_const, probe);
  CHECK_CLOSE(t3, dxs[p], 1e-12, "bsearch: forward = reverse");
  return check_report();
}
