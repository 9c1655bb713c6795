/* Dense least squares through Eigen 3 (MatrixXd): f(W) = 1/2 ||X W - Y||_F^2, gradient w.r.t. W
 * (n x k, column-major) with X (m x n) and Y (m x k) constant. */
#ifndef EIGEN_LSQ_H
#define EIGEN_LSQ_H
struct Problem { long m, n, k; double *w, *x, *y; };
#ifdef __cplusplus
extern "C" {
#endif
double eigen_lsq_primal(const double *W, const double *X, const double *Y, long m, long n, long k);
#ifdef __cplusplus
}
#endif
#endif
