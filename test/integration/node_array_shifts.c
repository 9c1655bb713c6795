// Run-time-length copies inside memory that mixes kinds: a B-tree-style node keeps integer keys,
// double values and child pointers in three arrays of one struct, and inserting or removing an
// entry shifts each array with memmove (Rust's BTreeMap does the same). The copies are told apart
// by their element type: the values' adjoints move back in reverse mode, the child pointers'
// shadows move forward, the keys carry nothing. Shifts addressed by run-time index (&a[i]) and by
// constant offset (a + 1) both. Reverse vs. central differences, forward vs. reverse.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
#include "check.h"
#include <stdlib.h>
#include <string.h>

#define CAP 16
#define N 9

typedef struct Node {
  struct Node *parent;
  long keys[CAP];
  double vals[CAP];
  struct Node *child[CAP];
  int len;
} Node;

static void insert(Node *nd, long k, double v, Node *link) {
  int i = 0;
  while (i < nd->len && nd->keys[i] < k)
    i++;
  memmove(&nd->keys[i + 1], &nd->keys[i], (size_t)(nd->len - i) * sizeof(long));
  memmove(&nd->vals[i + 1], &nd->vals[i], (size_t)(nd->len - i) * sizeof(double));
  memmove(&nd->child[i + 1], &nd->child[i], (size_t)(nd->len - i) * sizeof(Node *));
  nd->keys[i] = k;
  nd->vals[i] = v;
  nd->child[i] = link;
  nd->len++;
}

static void remove_front(Node *nd) {
  memmove(nd->keys, nd->keys + 1, (size_t)(nd->len - 1) * sizeof(long));
  memmove(nd->vals, nd->vals + 1, (size_t)(nd->len - 1) * sizeof(double));
  memmove(nd->child, nd->child + 1, (size_t)(nd->len - 1) * sizeof(Node *));
  nd->len--;
}

static double tree_sum(const double *x, int n) {
  Node *leaf = (Node *)calloc(1, sizeof(Node)), *root = (Node *)calloc(1, sizeof(Node));
  for (int i = 0; i < n; ++i)
    insert(leaf, (i * 5) % n, x[i] * x[i] + 0.5 * x[(i + 2) % n], 0);
  for (int i = 0; i < n; ++i)
    insert(root, (i * 7) % n, sin(x[i]) * x[(i + 1) % n], leaf);
  remove_front(root);
  remove_front(leaf);
  double s = 0;
  for (int i = 0; i < root->len; ++i)
    s += root->vals[i] * (double)(root->keys[i] + 1) + root->child[i]->vals[i % leaf->len] * root->vals[i];
  free(leaf);
  free(root);
  return s;
}

static double fd_wrap(const double *x, void *ctx) {
  (void)ctx;
  return tree_sum(x, N);
}

int main(void) {
  check_seed(23);
  double x[N], g[N] = {0}, fd[N], v[N];
  check_fill(x, N, -1, 1);
  check_fill(v, N, -1, 1);
  __enzyme_autodiff((void *)tree_sum, enzyme_dup, x, g, enzyme_const, N);
  check_fd_grad(fd_wrap, 0, x, N, fd);
  for (int i = 0; i < N; ++i)
    CHECK_CLOSE(g[i], fd[i], 1e-7, "reverse d/dx[%d] vs FD", i);
  double t = __enzyme_fwddiff((void *)tree_sum, enzyme_dup, x, v, enzyme_const, N);
  CHECK_CLOSE(t, check_dot(g, v, N), 1e-12, "forward vs reverse");
  return check_report();
}
