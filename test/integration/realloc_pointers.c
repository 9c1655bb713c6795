// realloc of blocks that hold pointers to differentiated data, in reverse and forward mode: an
// array of pointers grown while it is filled (the shadow pointers must move to the new shadow
// block as realloc moves the pointers; before, the new shadow was zeroed and the reverse sweep
// dereferenced null shadows), and an array of structs {double *p; double v;} holding both, whose
// float adjoints move back to the old block in reverse. Checked against analytic gradients and
// forward against reverse.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O0 -I%inputs %s -o %t4 -lm && %t4
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t5 -lm && %t5
#include "check.h"
#include <stdlib.h>

#define N 11

/* sum_i x_i^2 w_i through an array of pointers that doubles its capacity as it fills */
static double ptr_array(double *x, int n) {
  int cap = 2, len = 0;
  double **ps = (double **)malloc(cap * sizeof(double *));
  for (int i = 0; i < n; ++i) {
    if (len == cap) {
      cap *= 2;
      ps = (double **)realloc(ps, cap * sizeof(double *));
    }
    ps[len++] = x + (i * 5) % n; /* a permutation of x: n and 5 are coprime */
  }
  double s = 0;
  for (int i = 0; i < len; ++i)
    s += *ps[i] * *ps[i] * (1 + i % 3);
  free(ps);
  return s;
}

struct node {
  double *p;
  double v;
};

/* nodes {&x_j, x_i^2}, grown one at a time; sum of *p * v * (i + 1) */
static double node_array(double *x, int n) {
  struct node *a = NULL;
  for (int i = 0; i < n; ++i) {
    a = (struct node *)realloc(a, (i + 1) * sizeof *a);
    a[i].p = x + (n - 1 - i);
    a[i].v = x[i] * x[i];
  }
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += *a[i].p * a[i].v * (i + 1);
  free(a);
  return s;
}

int main(void) {
  double x[N], v[N];
  for (int i = 0; i < N; ++i) {
    x[i] = 0.5 + 0.25 * i;
    v[i] = (i % 2) ? 1.0 : -0.5;
  }
  { /* d/dx_j of sum_i x_{5i mod n}^2 (1 + i % 3) = 2 x_j (1 + i % 3) for the i with 5i = j */
    double dx[N] = {0}, want[N] = {0}, dir = 0;
    for (int i = 0; i < N; ++i)
      want[(i * 5) % N] = 2 * x[(i * 5) % N] * (1 + i % 3);
    __enzyme_autodiff((void *)ptr_array, enzyme_dup, x, dx, enzyme_const, N);
    for (int j = 0; j < N; ++j) {
      CHECK_CLOSE(dx[j], want[j], 1e-12, "ptr_array reverse dx[%d]", j);
      dir += want[j] * v[j];
    }
    double t = __enzyme_fwddiff((void *)ptr_array, enzyme_dup, x, v, enzyme_const, N);
    CHECK_CLOSE(t, dir, 1e-12, "ptr_array forward vs reverse");
  }
  { /* s = sum_i x_{n-1-i} x_i^2 (i + 1) */
    double dx[N] = {0}, want[N] = {0}, dir = 0;
    for (int i = 0; i < N; ++i) {
      want[N - 1 - i] += x[i] * x[i] * (i + 1);
      want[i] += 2 * x[i] * x[N - 1 - i] * (i + 1);
    }
    __enzyme_autodiff((void *)node_array, enzyme_dup, x, dx, enzyme_const, N);
    for (int j = 0; j < N; ++j) {
      CHECK_CLOSE(dx[j], want[j], 1e-12, "node_array reverse dx[%d]", j);
      dir += want[j] * v[j];
    }
    double t = __enzyme_fwddiff((void *)node_array, enzyme_dup, x, v, enzyme_const, N);
    CHECK_CLOSE(t, dir, 1e-12, "node_array forward vs reverse");
  }
  return check_report();
}
