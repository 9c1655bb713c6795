/* Forward mode, one tangent sweep per matrix entry. */
#include "../objectives/det.c"

extern int enzyme_dup, enzyme_const;
double __enzyme_fwddiff(void *, ...);

const char *tool_name = "synthase-fwd";
static double *seed;
void tool_prepare(Problem *p) { seed = alloc_doubles((long)p->ell * p->ell); }
void tool_deriv(Problem *p, double *D) {
  for (long j = 0; j < (long)p->ell * p->ell; ++j) {
    seed[j] = 1;
    D[j] = __enzyme_fwddiff((void *)det_primal, enzyme_dup, p->A, seed, enzyme_const, p->ell);
    seed[j] = 0;
  }
}
