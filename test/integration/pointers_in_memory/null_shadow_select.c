// Rows of a heap array that point into the input (which has a shadow) or into constant data
// (which has none), chosen by a select: the stored shadow is a select of the input's shadow and
// null. Before, only a stored pointer without any shadow turned on the run-time null checks, so
// the reverse sweep added into the null shadow of the constant row and crashed (both modes read
// through it). Also the debugging aid SYNTHASE_CHECK_SHADOWS=1 (docs/design.md, "Debugging a
// null shadow"): the augmented sweep names the load that produced a null shadow for a non-null
// pointer, and without the variable nothing is checked or printed.
// f(x) = w0 w1 + x0 x1, so df/dx = (x1, x0).
// RUN: %synthase-cc -O0 %s -o %t0 -lm && %t0 2>&1 | FileCheck --check-prefix=OFF %s
// RUN: %synthase-cc -O2 %s -o %t2 -lm && %t2 2>&1 | FileCheck --check-prefix=OFF %s
// RUN: %synthase-cxx -x c++ -O2 %s -o %t3 -lm && %t3 2>&1 | FileCheck --check-prefix=OFF %s
// RUN: env SYNTHASE_CHECK_SHADOWS=1 %synthase-cc -O1 %s -o %t4 -lm && %t4 2>&1 | FileCheck %s
// CHECK: synthase: null shadow: {{.*}} = load ptr, ptr {{.*}} in f
// CHECK: reverse -1 3 forward -1 3
// OFF-NOT: null shadow
// OFF: reverse -1 3 forward -1 3
#include <stdio.h>
#include <stdlib.h>
#ifdef __cplusplus
extern "C" {
#endif
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
#ifdef __cplusplus
}
#endif

static const double weights[2] = {0.25, 0.5};

/* sum over rows of row[0] * row[1]; the even rows are the constant weights */
static double f(const double *x, int n) {
  const double **rows = (const double **)malloc(n * sizeof *rows);
  for (int i = 0; i < n; i++)
    rows[i] = (i % 2) ? x : weights;
  double s = 0;
  for (int i = 0; i < n; i++)
    s += rows[i][0] * rows[i][1];
  free(rows);
  return s;
}

int main(void) {
  double x[2] = {3.0, -1.0}, g[2] = {0, 0}, e0[2] = {1, 0}, e1[2] = {0, 1};
  __enzyme_autodiff((void *)f, enzyme_dup, x, g, enzyme_const, 2);
  double t0 = __enzyme_fwddiff((void *)f, enzyme_dup, x, e0, enzyme_const, 2);
  double t1 = __enzyme_fwddiff((void *)f, enzyme_dup, x, e1, enzyme_const, 2);
  printf("reverse %g %g forward %g %g\n", g[0], g[1], t0, t1);
  return !(g[0] == x[1] && g[1] == x[0] && t0 == x[1] && t1 == x[0]);
}
