/* The primal is included, not linked: the plugin differentiates IR of the same module.
 * The work buffers are overwritten every step, so they get shadows of their own. */
#include "../objectives/stencil.c"
#include <string.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

const char *tool_name = "synthase-rev";
void tool_prepare(Problem *p) { (void)p; }
void tool_deriv(Problem *p, double *D) {
  size_t bytes = sizeof(double) * (size_t)p->n;
  memset(D, 0, bytes);
  memset(p->du, 0, bytes);
  memset(p->dv, 0, bytes);
  __enzyme_autodiff((void *)stencil_primal, enzyme_dup, p->u0, D, enzyme_dup, p->u, p->du,
                    enzyme_dup, p->v, p->dv, enzyme_const, p->n, enzyme_const, p->steps);
}
