// A caller's buffer moved into a fresh block by hand before the old one is freed, the way C code
// grows its arrays: a prefix by memcpy and the rest by a loop, into a block tested for allocation
// failure (`if (!nb) exit(2)`, so the null is observed); an element inserted by two shifted loops;
// an array of {x, v} structs copied field by field; floats grown the same way (their
// two-element memcpy is an integer move of 8 bytes), after calls that leave freed chunks of
// other sizes behind, so the caller's block may be larger than its shadow. The adjoints of the moved elements must
// reach the caller's (new) shadow, each at its new place.
// Reverse against analytic values, forward against reverse.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
// RUN: %synthase-cc -O2 -flto -fuse-ld=lld -I%inputs %s -o %t5 -lm && %t5
#include "check.h"
#include <string.h>

typedef struct {
  double *data;
  long n, cap;
} Buf;

static double *checked_alloc(long cap) {
  double *nb = cap != 0 ? (double *)malloc(cap * sizeof(double)) : NULL;
  if (!nb) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  return nb;
}

// grows by a two-element memcpy and a loop for the rest; then appends a x0 x1
static double grow_mixed(Buf *b, double a) {
  double *nb = checked_alloc(2 * b->cap);
  memcpy(nb, b->data, 2 * sizeof(double));
  for (long i = 2; i < b->n; i++)
    nb[i] = b->data[i];
  free(b->data);
  b->data = nb;
  b->cap *= 2;
  b->data[b->n++] = a * nb[0] * nb[1];
  double t = 0;
  for (long i = 0; i < b->n; i++)
    t += (i + 1) * b->data[i] * b->data[i];
  return t;
}

// inserts a x3 at position 1 by hand: elements after it move one place up
static double insert_by_hand(Buf *b, double a) {
  double *nb = checked_alloc(b->n + 1);
  double v = a * b->data[3];
  nb[0] = b->data[0];
  nb[1] = v;
  for (long i = 1; i < b->n; i++)
    nb[i + 1] = b->data[i];
  free(b->data);
  b->data = nb;
  b->n++;
  b->cap = b->n;
  double t = 0;
  for (long i = 0; i < b->n; i++)
    t += (i + 1) * b->data[i] * b->data[i];
  return t;
}

typedef struct {
  double x, v;
} Part;
typedef struct {
  Part *p;
  long n;
} Parts;

// doubles the array of particles, copying each field on its own; the new ones are (a x_k, v_k)
static double grow_parts(Parts *s, double a) {
  Part *np = (Part *)malloc(2 * s->n * sizeof(Part));
  for (long i = 0; i < s->n; i++) {
    np[i].x = s->p[i].x;
    np[i].v = s->p[i].v;
  }
  free(s->p);
  s->p = np;
  for (long i = 0; i < s->n; i++)
    np[s->n + i] = (Part){a * np[i].x, np[i].v};
  s->n *= 2;
  double t = 0;
  for (long i = 0; i < s->n; i++)
    t += (i + 1) * s->p[i].x * s->p[i].v;
  return t;
}

typedef struct {
  float *data;
  long n, cap;
} FBuf;

// sum (i+1) a d_i^2 after growing by a two-float memcpy and a loop
static double grow_floats(FBuf *b, double a) {
  float *nb = (float *)malloc(2 * b->cap * sizeof(float));
  if (!nb)
    exit(2);
  memcpy(nb, b->data, 2 * sizeof(float));
  for (long i = 2; i < b->n; i++)
    nb[i] = b->data[i];
  free(b->data);
  b->data = nb;
  b->cap *= 2;
  double t = 0;
  for (long i = 0; i < b->n; i++)
    t += (i + 1) * a * (double)nb[i] * nb[i];
  return t;
}

enum { N = 4 };
static const double X[N] = {0.5, -1.5, 2.0, 0.7};
static const double A = 0.7;

static double want_buf(int which, int k) {
  if (which == 0) {
    double p = A * X[0] * X[1];
    return 2 * (k + 1) * X[k] + (k == 0 ? 2 * (N + 1) * p * A * X[1] : k == 1 ? 2 * (N + 1) * p * A * X[0] : 0);
  }
  // new order: x0, a x3, x1, x2, x3 with weights 1..5
  int pos = k == 0 ? 1 : k + 2;
  return 2 * pos * X[k] + (k == 3 ? 2 * 2 * A * A * X[3] : 0);
}

#define CHECK_BUF(W, F)                                                                                       \
  for (int k = 0; k < N; k++) {                                                                               \
    Buf v = {(double *)malloc(N * 8), N, N}, dv = {(double *)calloc(N, 8), N, N};                             \
    memcpy(v.data, X, sizeof X);                                                                              \
    __enzyme_autodiff((void *)F, enzyme_dup, &v, &dv, enzyme_const, A);                                       \
    CHECK_CLOSE(dv.data[k], want_buf(W, k), 1e-12, "%s: reverse d/dx%d", #F, k);                              \
    Buf w = {(double *)malloc(N * 8), N, N}, dw = {(double *)calloc(N, 8), N, N};                             \
    memcpy(w.data, X, sizeof X);                                                                              \
    dw.data[k] = 1;                                                                                           \
    double t = __enzyme_fwddiff((void *)F, enzyme_dup, &w, &dw, enzyme_const, A);                             \
    CHECK_CLOSE(t, dv.data[k], 1e-12, "%s: forward vs reverse d/dx%d", #F, k);                                \
    free(v.data);                                                                                             \
    free(dv.data);                                                                                            \
    free(w.data);                                                                                             \
    free(dw.data);                                                                                            \
  }

int main(void) {
  CHECK_BUF(0, grow_mixed)
  CHECK_BUF(1, insert_by_hand)
  for (int k = 0; k < 2 * N; k++) {
    Parts s = {(Part *)malloc(N * sizeof(Part)), N}, ds = {(Part *)calloc(N, sizeof(Part)), N};
    for (int i = 0; i < N; i++)
      s.p[i] = (Part){X[i], X[(i + 1) % N]};
    __enzyme_autodiff((void *)grow_parts, enzyme_dup, &s, &ds, enzyme_const, A);
    int i = k / 2;
    double x = X[i], v = X[(i + 1) % N], c = N + i + 1;
    // t_i = (i+1) x v and (N+i+1) a x v
    double want = k % 2 == 0 ? (i + 1) * v + c * A * v : (i + 1) * x + c * A * x;
    double got = k % 2 == 0 ? ds.p[i].x : ds.p[i].v;
    CHECK_CLOSE(got, want, 1e-12, "grow_parts: reverse d/d%s%d", k % 2 ? "v" : "x", i);
    Parts w = {(Part *)malloc(N * sizeof(Part)), N}, dw = {(Part *)calloc(N, sizeof(Part)), N};
    for (int j = 0; j < N; j++)
      w.p[j] = (Part){X[j], X[(j + 1) % N]};
    if (k % 2)
      dw.p[i].v = 1;
    else
      dw.p[i].x = 1;
    double t = __enzyme_fwddiff((void *)grow_parts, enzyme_dup, &w, &dw, enzyme_const, A);
    CHECK_CLOSE(t, got, 1e-12, "grow_parts: forward vs reverse [%d]", k);
    free(s.p);
    free(ds.p);
    free(w.p);
    free(dw.p);
  }
  for (int k = 0; k < N; k++) {
    FBuf v = {(float *)malloc(N * 4), N, N}, dv = {(float *)calloc(N, 4), N, N};
    for (int i = 0; i < N; i++)
      v.data[i] = (float)X[i];
    __enzyme_autodiff((void *)grow_floats, enzyme_dup, &v, &dv, enzyme_const, A);
    CHECK_CLOSE(dv.data[k], 2 * (k + 1) * A * (float)X[k], 1e-6, "grow_floats: reverse d/dx%d", k);
    FBuf w = {(float *)malloc(N * 4), N, N}, dw = {(float *)calloc(N, 4), N, N};
    for (int i = 0; i < N; i++)
      w.data[i] = (float)X[i];
    dw.data[k] = 1;
    double t = __enzyme_fwddiff((void *)grow_floats, enzyme_dup, &w, &dw, enzyme_const, A);
    CHECK_CLOSE(t, dv.data[k], 1e-6, "grow_floats: forward vs reverse d/dx%d", k);
    free(v.data);
    free(dv.data);
    free(w.data);
    free(dw.data);
  }
  return check_report();
}
