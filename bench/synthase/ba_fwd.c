/* Forward mode in vector form: per observation one tangent sweep of width 15 (enzyme_width), a
 * lane per input (11 camera parameters, 3 point coordinates, the weight), so the primal part is
 * shared by the 15 Jacobian columns. Camera and point seeds are rows of one identity-like buffer
 * (enzyme_dupv); the scalar weight takes its 15 tangents as separate arguments.
 * The primal is included, not linked: the plugin differentiates IR of the same module. */
#include "../objectives/ba.c"

extern int enzyme_dupv, enzyme_const, enzyme_dupnoneedv, enzyme_width;
void __enzyme_fwddiff(void *, ...);
double __enzyme_fwddiff_scalar(void *, ...);

const char *tool_name = "synthase-fwd";
/* lane l: seeds[l] holds the unit vector e_l of the 15 inputs (cam 0-10, X 11-13, w 14) */
static double seeds[15][15];
void tool_prepare(Problem *p) {
  (void)p;
  for (int l = 0; l < 15; ++l) seeds[l][l] = 1;
}
void tool_deriv(Problem *p, double *D) {
  const long stride = sizeof seeds[0];
  for (int i = 0; i < p->p; ++i) {
    const double *cam = p->cams + 11 * p->obs[2 * i], *X = p->X + 3 * p->obs[2 * i + 1];
    double err[2], derr[15][2];
    __enzyme_fwddiff((void *)ba_reproj, enzyme_width, 15, enzyme_dupv, stride, cam, &seeds[0][0],
                     enzyme_dupv, stride, X, &seeds[0][11], p->w[i], 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                     0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, enzyme_const, p->feats + 2 * i,
                     enzyme_dupnoneedv, (long)sizeof derr[0], err, &derr[0][0]);
    for (int k = 0; k < 15; ++k) {
      D[30L * i + k] = derr[k][0];
      D[30L * i + 15 + k] = derr[k][1];
    }
    D[30L * p->p + i] = __enzyme_fwddiff_scalar((void *)ba_weight, p->w[i], 1.0);
  }
}
