/* k-means (GradBench): cost(C) = sum_i min_j |C_j - P_i|^2 over n points P (n x d) and k centroids
 * C (k x d).  The measured derivative is GradBench's "dir", the Newton direction J / H: the
 * gradient J divided entry by entry by the Hessian's diagonal H (the Hessian is diagonal). */
#ifndef KMEANS_H
#define KMEANS_H
struct Problem { long n, k, d; double *points, *centroids, *work; };
double kmeans_cost(const double *points, const double *centroids, long n, long k, long d);
#endif
