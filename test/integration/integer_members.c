// Integer members of structs that also hold floats, moved member by member: an array of
// {double v; int i;} shifted in place, and a malloc'ed linked list of nodes with int, short and
// char members copied node by node. Reverse mode refused these ("floating-point data is moved as
// i32 values"): the integer loads were taken for float bits. Gradients against central
// differences, forward mode against reverse.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
#include "check.h"
#include <stdlib.h>

#define N 6

typedef struct { double v; int i; } Tagged;

// Shifts the array up by one slot, member by member, then weights each value by its index.
static double shift(const double *x, int n) {
  Tagged a[N + 1];
  for (int k = 0; k < n; k++) {
    a[k].v = x[k];
    a[k].i = k;
  }
  for (int k = n; k > 0; k--) {
    a[k].v = a[k - 1].v;
    a[k].i = a[k - 1].i;
  }
  double s = 0;
  for (int k = 1; k <= n; k++)
    s += a[k].v * a[k].v * (a[k].i + 1) + sin(a[k].v);
  return s;
}

typedef struct Node {
  double val;
  int id;
  short tag;
  char c;
  struct Node *next;
} Node;

// Builds a list, copies it node by node (reversing it), and reads the copy.
static double list_copy(const double *x, int n) {
  Node *head = NULL;
  for (int i = 0; i < n; i++) {
    Node *m = malloc(sizeof *m);
    m->val = x[i];
    m->id = i;
    m->tag = (short)(3 * i);
    m->c = (char)('a' + i);
    m->next = head;
    head = m;
  }
  Node *copy = NULL;
  for (Node *p = head; p; p = p->next) {
    Node *q = malloc(sizeof *q);
    q->val = p->val;
    q->id = p->id;
    q->tag = p->tag;
    q->c = p->c;
    q->next = copy;
    copy = q;
  }
  double s = 0;
  while (copy) {
    s += sin(copy->val) * (copy->id + 1) + copy->tag * copy->val * copy->val + (copy->c - 'a');
    Node *nx = copy->next;
    free(copy);
    copy = nx;
  }
  while (head) {
    Node *nx = head->next;
    free(head);
    head = nx;
  }
  return s;
}

typedef double (*fn)(const double *, int);
static double fd_of(const double *x, void *f) { return ((fn)f)(x, N); }

static void check(fn f, const char *name) {
  double x[N], dx[N] = {0}, g[N], v[N];
  check_fill(x, N, -1, 1);
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N);
  check_fd_grad(fd_of, (void *)f, x, N, g);
  for (int k = 0; k < N; k++)
    CHECK_CLOSE(dx[k], g[k], 1e-7, "%s: reverse d/dx%d vs FD", name, k);
  check_fill(v, N, -1, 1);
  double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, v, enzyme_const, N);
  CHECK_CLOSE(t, check_dot(g, v, N), 1e-7, "%s: forward vs FD", name);
  CHECK_CLOSE(t, check_dot(dx, v, N), 1e-12, "%s: forward vs reverse", name);
}

int main(void) {
  check_seed(7);
  check(shift, "array shift");
  check(list_copy, "list copy");
  return check_report();
}
