/* Forward mode in vector form: tangent sweeps of width LANES (enzyme_width), each carrying LANES
 * input directions, so the primal part is shared by LANES gradient entries. The seeds are rows of
 * the identity in one strided buffer (enzyme_dupv); the LANES tangents come back as a struct.
 * Every size's input count is a multiple of LANES. */
#include "../objectives/ode.c"

#ifndef LANES
#define LANES 8
#endif
extern int enzyme_dupv, enzyme_const, enzyme_width;
typedef struct { double d[LANES]; } Lanes;
Lanes __enzyme_fwddiff_lanes(void *, ...);

const char *tool_name = "synthase-fwd";
static double *seeds;
void tool_prepare(Problem *p) { seeds = alloc_doubles(LANES * p->n); }
void tool_deriv(Problem *p, double *D) {
  for (long j0 = 0; j0 < p->n; j0 += LANES) {
    for (int l = 0; l < LANES; ++l) seeds[l * p->n + j0 + l] = 1;
    Lanes t = __enzyme_fwddiff_lanes((void *)ode_primal, enzyme_width, LANES, enzyme_dupv,
                                     (long)sizeof(double) * p->n, p->x, seeds, enzyme_const,
                                     p->n, enzyme_const, p->s);
    for (int l = 0; l < LANES; ++l) {
      seeds[l * p->n + j0 + l] = 0;
      D[j0 + l] = t.d[l];
    }
  }
}
