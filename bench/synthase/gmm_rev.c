/* The primal is included, not linked: the plugin differentiates IR of the same module. */
#include "../objectives/gmm.c"
#include <string.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

const char *tool_name = "synthase-rev";
void tool_prepare(Problem *p) { (void)p; }
void tool_deriv(Problem *p, double *D) {
  int k = p->k, d = p->d;
  memset(D, 0, sizeof(double) * (size_t)obj_deriv_len(p));
  const double *w = p->params;
  __enzyme_autodiff((void *)gmm_primal, enzyme_const, d, enzyme_const, k, enzyme_const, p->n,
                    enzyme_dup, w, D, enzyme_dup, w + k, D + k, enzyme_dup, w + k + k * d,
                    D + k + k * d, enzyme_const, p->x, enzyme_const, p->gamma, enzyme_const, p->m);
}
