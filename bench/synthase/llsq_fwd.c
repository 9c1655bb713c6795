/* Forward mode, one tangent sweep per input direction. */
#include "../objectives/llsq.c"

extern int enzyme_dup, enzyme_const;
double __enzyme_fwddiff(void *, ...);

const char *tool_name = "synthase-fwd";
static double *seed;
void tool_prepare(Problem *p) { seed = alloc_doubles(p->m); }
void tool_deriv(Problem *p, double *D) {
  for (long j = 0; j < p->m; ++j) {
    seed[j] = 1;
    D[j] = __enzyme_fwddiff((void *)llsq_primal, enzyme_dup, p->x, seed, enzyme_const, p->m,
                            enzyme_const, p->n);
    seed[j] = 0;
  }
}
