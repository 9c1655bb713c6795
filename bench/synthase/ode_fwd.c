/* Forward mode, one tangent sweep per input direction. */
#include "../objectives/ode.c"

extern int enzyme_dup, enzyme_const;
double __enzyme_fwddiff(void *, ...);

const char *tool_name = "synthase-fwd";
static double *seed;
void tool_prepare(Problem *p) { seed = alloc_doubles(p->n); }
void tool_deriv(Problem *p, double *D) {
  for (long j = 0; j < p->n; ++j) {
    seed[j] = 1;
    D[j] = __enzyme_fwddiff((void *)ode_primal, enzyme_dup, p->x, seed, enzyme_const, p->n,
                            enzyme_const, p->s);
    seed[j] = 0;
  }
}
