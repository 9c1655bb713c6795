/* LLSQ (GradBench): f(x) = 1/2 sum_i (sign(t_i) - sum_j x_j t_i^j)^2, t_i = -1 + 2i/(n-1). */
#ifndef LLSQ_H
#define LLSQ_H
struct Problem { long m, n; double *x; };
double llsq_primal(const double *x, long m, long n);
#endif
