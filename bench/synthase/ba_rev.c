/* Reverse mode, one sweep per residual row (2 per observation) seeded through the output shadow.
 * The primal is included, not linked: the plugin differentiates IR of the same module. */
#include "../objectives/ba.c"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);

const char *tool_name = "synthase-rev";
void tool_prepare(Problem *p) { (void)p; }
void tool_deriv(Problem *p, double *D) {
  for (int i = 0; i < p->p; ++i) {
    const double *cam = p->cams + 11 * p->obs[2 * i], *X = p->X + 3 * p->obs[2 * i + 1];
    for (int r = 0; r < 2; ++r) {
      double *row = D + 30L * i + 15 * r, err[2], derr[2] = {0, 0};
      derr[r] = 1;
      for (int k = 0; k < 14; ++k) row[k] = 0;
      row[14] = __enzyme_autodiff((void *)ba_reproj, enzyme_dup, cam, row, enzyme_dup, X,
                                  row + 11, enzyme_out, p->w[i], enzyme_const, p->feats + 2 * i,
                                  enzyme_dupnoneed, err, derr);
    }
    D[30L * p->p + i] = __enzyme_autodiff((void *)ba_weight, enzyme_out, p->w[i]);
  }
}
