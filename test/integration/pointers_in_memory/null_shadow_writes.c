// A pointer kept in memory without its shadow (enzyme_const data stored into a struct or a heap
// table) has a null shadow at run time. Reads through it see zeros and writes of constants are
// fine (the struct of a constant matrix, a log of counts); a value with a derivative written
// through it would be lost, so the program stops there with a message naming the function and
// the line, in reverse and in forward mode, instead of returning a gradient without that term.
// f(x) = sum_i A_i x_i^2 + x0 * x1, with the rows read through the struct.
// RUN: %synthase-cc -O0 -g -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -g -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -g -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cc -O2 -flto -fuse-ld=lld -g -I%inputs %s -o %t5 -lm && %t5
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
// RUN: not --crash %t0 reverse 2>&1 | FileCheck %s --check-prefix=LOST
// RUN: not --crash %t0 forward 2>&1 | FileCheck %s --check-prefix=LOST
// RUN: not --crash %t2 reverse 2>&1 | FileCheck %s --check-prefix=LOST
// RUN: not --crash %t2 forward 2>&1 | FileCheck %s --check-prefix=LOST
// RUN: not --crash %t3 reverse 2>&1 | FileCheck %s --check-prefix=LOST
// RUN: not --crash %t5 forward 2>&1 | FileCheck %s --check-prefix=LOST
// RUN: not --crash %t4 reverse 2>&1 | FileCheck %s --check-prefix=LOST4
// LOST-NOT: RESULT
// LOST4: synthase: in function '{{.*}}': a value with a derivative is written through a pointer that was kept in memory without its shadow
#include "check.h"
#include <stdlib.h>
#include <string.h>

struct Work {
  const double *A; // the caller's constant coefficients
  double *y;       // a workspace with a shadow
  double *count;   // constant bookkeeping: written with constants only
  long n;
};

// LOST: synthase: in function 'put' ({{.*}}null_shadow_writes.c:[[#@LINE+1]]:{{[0-9]+}}): a value with a derivative is written through a pointer that was kept in memory without its shadow
__attribute__((noinline)) static void put(double **slots, int k, double v) { slots[k][0] = v; }

__attribute__((noinline)) static double model(struct Work *w, const double *x) {
  for (long i = 0; i < w->n; i++) {
    w->y[i] = w->A[i] * x[i] * x[i];
    w->count[0] += 1.0;
  }
  double s = 0;
  for (long i = 0; i < w->n; i++)
    s += w->y[i];
  return s;
}

double f(const double *x, const double *A, double *count, long n) {
  double *y = (double *)malloc(n * sizeof(double));
  struct Work *w = (struct Work *)malloc(sizeof *w);
  w->A = A;
  w->y = y;
  w->count = count;
  w->n = n;
  double r = model(w, x) + x[0] * x[1];
  free(w);
  free(y);
  return r;
}

// Writes x0^2 into slot k: slot 0 has a shadow (a local), slot 1 is the caller's constant data.
double g(const double *x, double *c, int k) {
  double local[1] = {0};
  double **slots = (double **)malloc(2 * sizeof(double *));
  slots[0] = local;
  slots[1] = c;
  put(slots, k, x[0] * x[0]);
  double r = slots[k][0] * 3 + x[1];
  free(slots);
  return r;
}

int main(int argc, char **argv) {
  double x[3] = {0.5, -1.25, 2}, A[3] = {1.5, 2, -0.5}, count[1] = {0}, c[1] = {0};
  if (argc > 1) { // derivative data written into the constant slot: must stop, never a value
    double dx[2] = {0}, tx[2] = {1, 0};
    if (!strcmp(argv[1], "reverse"))
      __enzyme_autodiff((void *)g, enzyme_dup, x, dx, enzyme_const, c, enzyme_const, 1);
    else
      printf("%g\n", __enzyme_fwddiff((void *)g, enzyme_dup, x, tx, enzyme_const, c, enzyme_const, 1));
    printf("RESULT dx0 = %g\n", dx[0]);
    return 0;
  }
  double gx[3] = {0};
  __enzyme_autodiff((void *)f, enzyme_dup, x, gx, enzyme_const, A, enzyme_const, count, enzyme_const, 3L);
  for (int i = 0; i < 3; i++) {
    double want = 2 * A[i] * x[i] + (i == 0 ? x[1] : i == 1 ? x[0] : 0);
    CHECK_CLOSE(gx[i], want, 1e-12, "reverse df/dx%d", i);
    double e[3] = {0};
    e[i] = 1;
    double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, e, enzyme_const, A, enzyme_const, count, enzyme_const, 3L);
    CHECK_CLOSE(t, gx[i], 1e-12, "forward vs reverse df/dx%d", i);
  }
  double gk[2] = {0}, tk[2] = {1, 0};
  __enzyme_autodiff((void *)g, enzyme_dup, x, gk, enzyme_const, c, enzyme_const, 0);
  CHECK_CLOSE(gk[0], 6 * x[0], 1e-12, "reverse dg/dx0 through the shadowed slot");
  CHECK_CLOSE(gk[1], 1, 1e-12, "reverse dg/dx1");
  CHECK_CLOSE(__enzyme_fwddiff((void *)g, enzyme_dup, x, tk, enzyme_const, c, enzyme_const, 0), gk[0], 1e-12,
              "forward vs reverse dg/dx0");
  CHECK_TRUE(count[0] == 3 * 4, "the constant count ran once per derivative call (%g)", count[0]);
  return check_report();
}
