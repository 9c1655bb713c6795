/* LSE (GradBench): f(x) = log sum_i exp(x_i), gradient = softmax(x). */
#ifndef LSE_H
#define LSE_H
struct Problem { long n; double *x; };
double lse_primal(const double *x, long n);
#endif
