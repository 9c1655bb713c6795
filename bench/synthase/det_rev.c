/* The primal is included, not linked: the plugin differentiates IR of the same module. */
#include "../objectives/det.c"
#include <string.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

const char *tool_name = "synthase-rev";
void tool_prepare(Problem *p) { (void)p; }
void tool_deriv(Problem *p, double *D) {
  memset(D, 0, sizeof(double) * (size_t)p->ell * (size_t)p->ell);
  __enzyme_autodiff((void *)det_primal, enzyme_dup, p->A, D, enzyme_const, p->ell);
}
