/* Forward mode in vector form: one tangent sweep of width 26 (enzyme_width) carries every pose
 * parameter's direction at once, so the primal part is shared by the 26 Jacobian columns. The
 * seeds are the identity, one strided buffer (enzyme_dupv); the columns come back the same way.
 * The primal is included, not linked: the plugin differentiates IR of the same module. */
#include "../objectives/hand.c"

extern int enzyme_const, enzyme_width, enzyme_dupv, enzyme_dupnoneedv;
void __enzyme_fwddiff(void *, ...);

const char *tool_name = "synthase-fwd";
static double *cols, *seeds;
void tool_prepare(Problem *p) {
  cols = alloc_doubles(3L * p->npts * HAND_THETA);
  seeds = alloc_doubles(HAND_THETA * HAND_THETA);
  for (int k = 0; k < HAND_THETA; ++k) seeds[k * HAND_THETA + k] = 1;
}
void tool_deriv(Problem *p, double *D) {
  long m = 3L * p->npts;
  __enzyme_fwddiff((void *)hand_primal, enzyme_width, HAND_THETA, enzyme_dupv,
                   (long)sizeof(double) * HAND_THETA, p->theta, seeds, enzyme_const, &p->model,
                   enzyme_const, p->npts, enzyme_const, p->corr, enzyme_const, p->points,
                   enzyme_dupnoneedv, (long)sizeof(double) * m, p->err, cols);
  for (int k = 0; k < HAND_THETA; ++k)
    for (long i = 0; i < m; ++i) D[i * HAND_THETA + k] = cols[k * m + i];
}
