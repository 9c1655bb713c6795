/* ODE (GradBench): y' = f(x, y), f_0 = x_0, f_i = x_i y_{i-1}; y(0) = 0; s classic RK4 steps over
 * [0, 2]; the objective is the last component of y(2), differentiated w.r.t. x. */
#ifndef ODE_H
#define ODE_H
#define ODE_T 2.0
struct Problem { long n, s; double *x; };
double ode_primal(const double *x, long n, long s);
#endif
