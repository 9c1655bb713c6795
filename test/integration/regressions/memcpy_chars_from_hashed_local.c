// Found by the probe with Enzyme's integration tests (issue 14: stl_umap.cpp, map.cpp at -O2):
// a key's characters copied with a run-time length from a local string object into a heap node
// that also holds the active value. The local was also handed to a library function (the hash of
// the key: std::_Hash_bytes in libstdc++, strlen here), so its accesses were not all seen and the
// copy was refused ("cannot tell which bytes of this copy hold pointers and which hold
// floating-point values"). The local is never accessed as a float, its only pointer field lies
// before the copied bytes, no function with a body sees it and it is filled from a string
// constant, so the copy moves no derivative: the node's shadow bytes it overwrites are cleared.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
#include "check.h"
#include <stddef.h>

struct key { char *p; size_t len; char buf[16]; };
struct node { struct node *next; struct key k; double val; double weight; };

static double lookup_square(double x, double w) {
  struct key k;
  k.p = k.buf;
  memcpy(k.buf, "alpha_x", 8);
  k.len = strlen(k.buf); /* a library call sees the local */
  struct node *n = (struct node *)malloc(sizeof *n);
  n->next = NULL;
  n->k.p = n->k.buf;
  n->val = x * x;
  n->weight = w;
  memcpy(n->k.buf, k.buf, k.len + 1); /* run-time length */
  n->k.len = k.len;
  double r = n->val * n->weight + (double)n->k.len;
  free(n);
  return r;
}

typedef struct { double dx, dw; } grad2;
grad2 __enzyme_autodiff_g(void *, ...);

int main(void) {
  double x = 1.5, w = -0.75;
  grad2 g = __enzyme_autodiff_g((void *)lookup_square, x, w);
  CHECK_CLOSE(g.dx, 2 * x * w, 1e-15, "d/dx");
  CHECK_CLOSE(g.dw, x * x, 1e-15, "d/dw");
  double t = __enzyme_fwddiff((void *)lookup_square, x, 1.0, w, 0.0);
  CHECK_CLOSE(t, g.dx, 1e-15, "forward agrees with reverse");
  double h = 1e-6;
  double fd = (lookup_square(x + h, w) - lookup_square(x - h, w)) / (2 * h);
  CHECK_CLOSE(g.dx, fd, 1e-8, "d/dx vs central differences");
  return check_report();
}
