/* BA (ADBench): bundle adjustment.  Camera = Rodrigues rotation (3), centre (3), focal length (1),
 * principal point (2), radial distortion (2).  Each observation's reprojection residual (2) depends
 * on its camera, its point and its weight: a 2x15 Jacobian block; each weight residual 1 - w^2 a
 * 1x1 block.  Derivative layout: p blocks of 2x15 (row-major), then p weight derivatives. */
#ifndef BA_H
#define BA_H
struct Problem {
  int n, m, p;
  double *cams, *X, *w, *feats;
  int *obs; /* (camera, point) per observation */
  double *err;
};
void ba_reproj(const double *cam, const double *X, double w, const double *feat, double *err);
double ba_weight(double w);
#endif
