/* GMM (ADBench): negative log-likelihood of a Gaussian mixture with a Wishart prior, K components
 * in d dimensions over n points.  Active inputs, one buffer: alphas (K), means (K d), icf (K d(d+1)/2:
 * d log-diagonal entries of the inverse-covariance factor Q, then its strict lower triangle by
 * columns). */
#ifndef GMM_H
#define GMM_H
struct Problem {
  int d, k, n, m;
  double gamma;
  double *params, *x;
};
double gmm_primal(int d, int k, int n, const double *alphas, const double *means,
                  const double *icf, const double *x, double gamma, int m);
#endif
