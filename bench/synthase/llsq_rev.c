/* The primal is included, not linked: the plugin differentiates IR of the same module. */
#include "../objectives/llsq.c"
#include <string.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

const char *tool_name = "synthase-rev";
void tool_prepare(Problem *p) { (void)p; }
void tool_deriv(Problem *p, double *D) {
  memset(D, 0, sizeof(double) * (size_t)p->m);
  __enzyme_autodiff((void *)llsq_primal, enzyme_dup, p->x, D, enzyme_const, p->m, enzyme_const,
                    p->n);
}
