/* Forward mode, one tangent sweep per input of the 15 per observation.
 * The primal is included, not linked: the plugin differentiates IR of the same module. */
#include "../objectives/ba.c"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);

const char *tool_name = "synthase-fwd";
void tool_prepare(Problem *p) { (void)p; }
void tool_deriv(Problem *p, double *D) {
  double seed[15] = {0};
  for (int i = 0; i < p->p; ++i) {
    const double *cam = p->cams + 11 * p->obs[2 * i], *X = p->X + 3 * p->obs[2 * i + 1];
    for (int k = 0; k < 15; ++k) {
      double err[2], derr[2];
      seed[k] = 1;
      __enzyme_fwddiff((void *)ba_reproj, enzyme_dup, cam, seed, enzyme_dup, X, seed + 11,
                       p->w[i], seed[14], enzyme_const, p->feats + 2 * i, enzyme_dupnoneed, err,
                       derr);
      seed[k] = 0;
      D[30L * i + k] = derr[0];
      D[30L * i + 15 + k] = derr[1];
    }
    D[30L * p->p + i] = __enzyme_fwddiff((void *)ba_weight, p->w[i], 1.0);
  }
}
