/* The primal is included, not linked: the plugin differentiates IR of the same module. */
#include "../objectives/lstm.c"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

const char *tool_name = "synthase-rev";
void tool_prepare(Problem *p) { (void)p; }
void tool_deriv(Problem *p, double *D) {
  long nm = 8L * p->l * p->b;
  memset(D, 0, sizeof(double) * (size_t)obj_deriv_len(p));
  __enzyme_autodiff((void *)lstm_primal, enzyme_const, p->l, enzyme_const, p->c, enzyme_const,
                    p->b, enzyme_dup, p->params, D, enzyme_dup, p->params + nm, D + nm,
                    enzyme_const, p->state, enzyme_const, p->seq);
}
