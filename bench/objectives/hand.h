/* Hand tracking, simple variant (ADBench), on a synthetic model of the real structure: 22 bones
 * (forearm, wrist, 5 fingers of 4 bones), 26 pose parameters (global angle-axis rotation and
 * translation, then 4 per finger: two angles for the base bone and one each for the next two),
 * linear blend skinning of every vertex, residual = observed point - its corresponding vertex.
 * The derivative is the dense (3 npts) x 26 Jacobian, row-major. */
#ifndef HAND_H
#define HAND_H
#define HAND_BONES 22
#define HAND_THETA 26
typedef struct {
  int nverts;
  int parent[HAND_BONES];
  int theta_bone[HAND_THETA], theta_axis[HAND_THETA]; /* -1 for the 6 global parameters */
  double base_rel[HAND_BONES][16], inv_base_abs[HAND_BONES][16]; /* row-major 4x4 */
  double *base_pos; /* nverts x 3 */
  double *weights;  /* nverts x HAND_BONES */
} HandModel;
struct Problem {
  HandModel model;
  int npts;
  int *corr;
  double *points, *theta, *err;
};
void hand_primal(const double *theta, const HandModel *model, int npts, const int *corr,
                 const double *points, double *err);
#endif
