// memcpy with a run-time length into memory that mixes pointers and floats (the shape of
// std::unordered_map<std::string, double>'s node at -O2: a key's characters copied into a node
// that also holds the value). The layout is known at every offset, so each pointer field (shadow
// carried along) and each float field (adjoint handed back) wholly inside the copied bytes is
// handled, decided at run time.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O0 -I%inputs %s -o %t4 -lm && %t4
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t5 -lm && %t5
#include "check.h"
#include <stddef.h>

struct str { char *p; size_t len; char buf[16]; };
struct node { struct node *next; struct str key; double val; size_t hash; };

__attribute__((noinline)) static double *insert(struct node **head, const struct str *k) {
  struct node *n = (struct node *)malloc(sizeof *n);
  n->next = *head;
  n->key.p = n->key.buf;
  memcpy(n->key.buf, k->buf, k->len + 1); /* run-time length: the key's characters */
  n->key.len = k->len;
  *head = n;
  return &n->val;
}

static double keyed(double x) {
  struct node *head = 0;
  struct str k;
  k.p = k.buf;
  k.len = 7;
  memcpy(k.buf, "alpha_x", 8);
  *insert(&head, &k) = x * x;
  double r = head->val * (head->key.len == 7 ? 1.0 : 0.0);
  free(head);
  return r;
}

/* A prefix of a record copied with a run-time length: w (pointer) and a (float) inside, b not. */
struct rec { double *w; double a; long tag; double b; };

__attribute__((noinline)) static size_t prefix_len(int n) { return n == 2 ? offsetof(struct rec, tag) : sizeof(struct rec); }

static double prefix(double x, double *w, int n) {
  struct rec *s = (struct rec *)malloc(sizeof *s), *d = (struct rec *)malloc(sizeof *d);
  s->w = w;
  s->a = sin(x);
  s->tag = 1;
  s->b = x * x;
  d->b = 3 * x;
  memcpy(d, s, prefix_len(n));
  double r = d->w[0] * d->a + d->b + s->b;
  free(s);
  free(d);
  return r;
}

static double keyed_fd(double x, void *c) { (void)c; return keyed(x); }
static double prefix_fd(double x, void *c) { double w = 1.5; (void)c; return prefix(x, &w, 2); }
static double prefix_fd_w(double w, void *c) { (void)c; return prefix(0.4, &w, 2); }

int main(void) {
  double x = 3.0;
  double g = __enzyme_autodiff((void *)keyed, x);
  CHECK_CLOSE(g, 2 * x, 1e-14, "rev keyed");
  CHECK_CLOSE(g, check_fd(keyed_fd, 0, x), 1e-7, "rev keyed vs FD");
  double t = __enzyme_fwddiff((void *)keyed, x, 1.0);
  CHECK_CLOSE(t, g, 1e-14, "fwd vs rev keyed");

  x = 0.4;
  double w = 1.5, dw = 0;
  double want = w * cos(x) + 3 + 2 * x;
  g = __enzyme_autodiff((void *)prefix, x, enzyme_dup, &w, &dw, enzyme_const, 2);
  CHECK_CLOSE(g, want, 1e-13, "rev prefix d/dx");
  CHECK_CLOSE(g, check_fd(prefix_fd, 0, x), 1e-7, "rev prefix d/dx vs FD");
  CHECK_CLOSE(dw, sin(x), 1e-13, "rev prefix d/dw");
  CHECK_CLOSE(dw, check_fd(prefix_fd_w, 0, w), 1e-7, "rev prefix d/dw vs FD");
  double one = 1.0;
  t = __enzyme_fwddiff((void *)prefix, x, 1.0, enzyme_dup, &w, &one, enzyme_const, 2);
  CHECK_CLOSE(t, want + sin(x), 1e-13, "fwd prefix (dx = dw = 1)");
  CHECK_CLOSE(t, g + dw, 1e-13, "fwd vs rev prefix");
  return check_report();
}
