/* Reverse mode, both residual rows of an observation in one width-2 sweep (vector reverse mode):
 * one forward part and one tape per observation, lane r seeded with the r-th unit output weight.
 * The primal is included, not linked: the plugin differentiates IR of the same module. */
#include "../objectives/ba.c"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed, enzyme_width;
typedef struct { double dw[2]; } WeightLanes; /* enzyme_out at width 2: one adjoint per lane */
WeightLanes __enzyme_autodiff_lanes(void *, ...);
double __enzyme_autodiff(void *, ...);

const char *tool_name = "synthase-rev";
void tool_prepare(Problem *p) { (void)p; }
void tool_deriv(Problem *p, double *D) {
  for (int i = 0; i < p->p; ++i) {
    const double *cam = p->cams + 11 * p->obs[2 * i], *X = p->X + 3 * p->obs[2 * i + 1];
    double *row0 = D + 30L * i, *row1 = row0 + 15, err[2], seed0[2] = {1, 0}, seed1[2] = {0, 1};
    for (int k = 0; k < 14; ++k)
      row0[k] = row1[k] = 0;
    WeightLanes dw = __enzyme_autodiff_lanes((void *)ba_reproj, enzyme_width, 2, enzyme_dup, cam, row0, row1,
                                             enzyme_dup, X, row0 + 11, row1 + 11, enzyme_out, p->w[i],
                                             enzyme_const, p->feats + 2 * i, enzyme_dupnoneed, err, seed0, seed1);
    row0[14] = dw.dw[0];
    row1[14] = dw.dw[1];
    D[30L * p->p + i] = __enzyme_autodiff((void *)ba_weight, enzyme_out, p->w[i]);
  }
}
