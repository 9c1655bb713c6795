// RUN: %synthase-cc -O0 %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native %s -o %t3 -lm && %t3
// Found by fuzzgen --mem 1 --seed 47 --index 242 at -O1 and -O3 -march=native (the block came from
// posix_memalign in a helper; malloc inline is enough), reduced by hand. Reverse mode produces
// invalid IR at every level:
//   error: synthase: in function 'f': internal error: the generated derivative 'reverse_f' is not valid IR
//   hint: Operand is null
//   switch i32 %57, <null operand!> [ i32 0, label %.. ]
// Ingredients: a heap block filled from active data, read under a data-dependent branch and in a
// loop, then freed, and every value read from it dead (t is overwritten before the return). With
// the block on the stack, without the branch, without the loop, or with t live, it compiles and is right.
//   build/bin/synthase-cc -O0 dead_heap_reads_branch.c -o r -lm && ./r
#include <stdio.h>
#include <stdlib.h>
extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);

static double f(double x, double *a, int n) {
  double t = x;
  double *m = (double *)malloc(sizeof(double) * n);
  for (int i = 0; i < n; ++i)
    m[i] = a[2] * i;
  if (a[1] > 0.5)
    t += m[0];
  for (int i = 0; i < n; ++i)
    t += m[i] * a[i];
  free(m);
  t = a[0] * x; /* everything read from the block is dead */
  return t;
}

int main(void) {
  double a[3] = {1.5, 2.5, 0.5}, da[3] = {0, 0, 0};
  double g = __enzyme_autodiff((void *)f, enzyme_out, 0.3, enzyme_dup, a, da, enzyme_const, 3);
  printf("dx = %g (want 1.5), da = {%g, %g, %g} (want {0.3, 0, 0})\n", g, da[0], da[1], da[2]);
  return !(g == 1.5 && da[0] == 0.3 && da[1] == 0 && da[2] == 0);
}
