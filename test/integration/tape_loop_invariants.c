// Values a loop uses but does not change are taped once, at the loop's exit, when the loop is not
// a counted one too: a linked list walked by pointer (Rust's iterator loops look like this), left
// through its one exit that can return (the others abort, as bounds checks panic). The tape is
// measured with -mllvm -synthase-tape-stats: taping `b = exp(x[2])` (and at -O0 `w`) per node
// would add 8 or more bytes per node, over the 4 kB allowed. Gradients against central differences, forward against reverse.
// RUN: %synthase-cc -O0 -mllvm -synthase-tape-stats -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -mllvm -synthase-tape-stats -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -mllvm -synthase-tape-stats -I%inputs %s -o %t3 -lm && %t3
#include "check.h"
#include <stdlib.h>

struct node { double c; struct node *next; };
enum { M = 1000, N = 4 };
static struct node nodes[M];

static double chase(const double *x, const struct node *head) {
  double b = exp(x[2]);
  const double *w = x[3] > 0 ? x + 1 : x;
  double s = 0;
  for (const struct node *p = head; p; p = p->next) {
    if (p->c > 100)
      abort();
    s += sin(p->c * x[0] + 0.1 * s) * b + w[0] * p->c;
  }
  return s;
}

static double fd_of(const double *x, void *f) { return ((double (*)(const double *, const struct node *))f)(x, nodes); }

int main(void) {
  for (int i = 0; i < M; i++) {
    nodes[i].c = sin(0.7 * i);
    nodes[i].next = i + 1 < M ? &nodes[i + 1] : 0;
  }
  double x[N] = {0.8, -0.3, 0.2, 0.5}, dx[N] = {0}, g[N], v[N] = {0.3, -0.7, 0.4, 0.9};
  __synthase_tape_peak_v1 = 0;
  __enzyme_autodiff((void *)chase, enzyme_dup, x, dx, enzyme_const, nodes);
  long tape = __synthase_tape_peak_v1;
  check_fd_grad(fd_of, (void *)chase, x, N, g);
  for (int k = 0; k < N; k++)
    CHECK_CLOSE(dx[k], g[k], 1e-6, "list walk: reverse d/dx%d vs FD", k);
  double t = __enzyme_fwddiff((void *)chase, enzyme_dup, x, v, enzyme_const, nodes);
  CHECK_CLOSE(t, check_dot(dx, v, N), 1e-11, "list walk: forward vs reverse");
#ifdef __OPTIMIZE__
  const long per_node = 32; // the header's predecessor, sin, its argument and p->c
#else
  const long per_node = 40; // -O0 keeps p->c loaded twice
#endif
  CHECK_TRUE(tape <= per_node * M + 4096, "list walk: tape %ld bytes, want at most %ld", tape, per_node * M + 4096);
  return check_report();
}
