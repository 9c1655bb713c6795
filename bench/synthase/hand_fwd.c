/* Forward mode, one tangent sweep per pose parameter (26), each giving a Jacobian column.
 * The primal is included, not linked: the plugin differentiates IR of the same module. */
#include "../objectives/hand.c"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
void __enzyme_fwddiff(void *, ...);

const char *tool_name = "synthase-fwd";
static double *col;
void tool_prepare(Problem *p) { col = alloc_doubles(3L * p->npts); }
void tool_deriv(Problem *p, double *D) {
  double seed[HAND_THETA] = {0};
  for (int k = 0; k < HAND_THETA; ++k) {
    seed[k] = 1;
    __enzyme_fwddiff((void *)hand_primal, enzyme_dup, p->theta, seed, enzyme_const, &p->model,
                     enzyme_const, p->npts, enzyme_const, p->corr, enzyme_const, p->points,
                     enzyme_dupnoneed, p->err, col);
    seed[k] = 0;
    for (long i = 0; i < 3L * p->npts; ++i) D[i * HAND_THETA + k] = col[i];
  }
}
