/* The primal is included, not linked: the plugin differentiates IR of the same module. */
#include "../objectives/matvec.c"
#include <string.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

const char *tool_name = "synthase-rev";
void tool_prepare(Problem *p) { (void)p; }
void tool_deriv(Problem *p, double *D) {
  long mn = p->m * p->n;
  memset(D, 0, sizeof(double) * (size_t)(mn + p->n));
  __enzyme_autodiff((void *)matvec_primal, enzyme_dup, p->w, D, enzyme_dup, p->w + mn, D + mn,
                    enzyme_const, p->b, enzyme_const, p->m, enzyme_const, p->n);
}
