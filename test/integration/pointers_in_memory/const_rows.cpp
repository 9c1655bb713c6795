// Pointers kept in heap memory (issue 12, class 11): pointers into an enzyme_const input stored in
// a heap array the function allocates (std::vector<const double *>) have no shadow; the values
// read through them are constant. Before, reverse mode added adjoints through a null shadow
// (segfault) and forward mode read tangents through it. Now a shadow pointer loaded back from
// memory that may hold null shadows is checked at run time. Mixed arrays (some rows active, some
// constant) must give the right gradient for the active rows.
// RUN: %synthase-cxx -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cxx -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -O3 -march=native -flto -fuse-ld=lld -I%inputs %s -o %t4 -lm && %t4
#include "check.h"
#include <vector>

static const int N = 3, M = 4;

/* sum_ij sin(w_j * table[i][j]) through a vector of row pointers into constant data */
static double rows_const(const double *w, const double *table, int n, int m) {
  std::vector<const double *> rows;
  for (int i = 0; i < n; i++)
    rows.push_back(table + i * m);
  double s = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      s += sin(w[j] * rows[i][j]);
  return s;
}
static double rows_const_fd(const double *w, void *ctx) { return rows_const(w, (const double *)ctx, N, M); }

/* rows alternate between the active input x and the constant table */
static double rows_mixed(const double *x, const double *table, int n, int m) {
  const double **rows = (const double **)malloc(sizeof(double *) * 2 * n);
  for (int i = 0; i < n; i++) {
    rows[2 * i] = x + i * m;
    rows[2 * i + 1] = table + i * m;
  }
  double s = 0;
  for (int i = 0; i < 2 * n; i++)
    for (int j = 0; j < m; j++)
      s += rows[i][j] * rows[i][j] * (i + 1) + cos(rows[i][j]);
  free(rows);
  return s;
}
static double rows_mixed_fd(const double *x, void *ctx) { return rows_mixed(x, (const double *)ctx, N, M); }

int main() {
  double w[M], table[N * M], x[N * M];
  check_fill(w, M, -1, 1);
  check_fill(table, N * M, -2, 2);
  check_fill(x, N * M, -1, 1);

  double g[M] = {0}, fd[M];
  __enzyme_autodiff((void *)rows_const, enzyme_dup, w, g, enzyme_const, table, enzyme_const, N, enzyme_const, M);
  check_fd_grad(rows_const_fd, table, w, M, fd);
  for (int j = 0; j < M; j++) {
    CHECK_CLOSE(g[j], fd[j], 1e-8, "rows_const reverse d/dw[%d]", j);
    double e[M] = {0};
    e[j] = 1;
    double t = __enzyme_fwddiff((void *)rows_const, enzyme_dup, w, e, enzyme_const, table, enzyme_const, N,
                                enzyme_const, M);
    CHECK_CLOSE(t, g[j], 1e-12, "rows_const forward vs reverse [%d]", j);
  }

  double gx[N * M] = {0}, fdx[N * M];
  __enzyme_autodiff((void *)rows_mixed, enzyme_dup, x, gx, enzyme_const, table, enzyme_const, N, enzyme_const, M);
  check_fd_grad(rows_mixed_fd, table, x, N * M, fdx);
  for (int i = 0; i < N * M; i++) {
    CHECK_CLOSE(gx[i], fdx[i], 1e-8, "rows_mixed reverse d/dx[%d]", i);
    double e[N * M] = {0};
    e[i] = 1;
    double t = __enzyme_fwddiff((void *)rows_mixed, enzyme_dup, x, e, enzyme_const, table, enzyme_const, N,
                                enzyme_const, M);
    CHECK_CLOSE(t, gx[i], 1e-12, "rows_mixed forward vs reverse [%d]", i);
  }
  return check_report();
}
