/* The call sites of lto-allocation-like.test; the function and its arena are in lto_arena.c. */
#include <stddef.h>
#include <stdio.h>
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int arena_live;
double cubes(const double *x, int n);
int main(void) {
  double x[5] = {1, 2, 3, -0.5, 0.25}, g[5] = {0}, v[5] = {1, -1, 0.5, 2, 3};
  __enzyme_autodiff((void *)cubes, enzyme_dup, x, g, enzyme_const, 5);
  double t = __enzyme_fwddiff((void *)cubes, enzyme_dup, x, v, enzyme_const, 5), want_t = 0;
  int bad = 0;
  for (int i = 0; i < 5; ++i) {
    double d = 3 * x[i] * x[i]; /* d/dx sum x^3 */
    want_t += d * v[i];
    if (g[i] != d)
      printf("FAIL reverse d[%d] = %g, want %g\n", i, g[i], d), ++bad;
  }
  if (t != want_t)
    printf("FAIL forward %g, want %g\n", t, want_t), ++bad;
  if (arena_live != 0)
    printf("FAIL %d arena blocks still live\n", arena_live), ++bad;
  printf(bad ? "lto arena: %d failed\n" : "lto arena: all passed\n", bad);
  return bad != 0;
}
