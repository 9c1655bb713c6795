/* The primal is included, not linked: the plugin differentiates IR of the same module. */
#include "../objectives/eigen_lsq.cpp"
#include <string.h>

extern "C" {
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

const char *tool_name = "synthase-rev";
void tool_prepare(Problem *p) { (void)p; }
void tool_deriv(Problem *p, double *D) {
  memset(D, 0, sizeof(double) * (size_t)(p->n * p->k));
  __enzyme_autodiff((void *)eigen_lsq_primal, enzyme_dup, p->w, D, enzyme_const, p->x, enzyme_const, p->y,
                    enzyme_const, p->m, enzyme_const, p->n, enzyme_const, p->k);
}
}
