/* Dense mat-vec loss kernel: f(A, x) = 1/2 ||A x - b||^2, gradient w.r.t. both A (m x n, row-major)
 * and x; the active inputs are one buffer [A | x]. */
#ifndef MATVEC_H
#define MATVEC_H
struct Problem { long m, n; double *w, *b; };
double matvec_primal(const double *A, const double *x, const double *b, long m, long n);
#endif
