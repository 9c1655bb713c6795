/* det (GradBench): the determinant of an ell x ell matrix by expansion by minors along the first
 * row, recursively (ell! products); the derivative is its gradient w.r.t. the matrix (row-major),
 * the cofactor matrix. */
#ifndef DET_H
#define DET_H
struct Problem { int ell; double *A; };
double det_primal(const double *A, int ell);
#endif
