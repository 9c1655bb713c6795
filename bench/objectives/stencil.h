/* 1-D stencil kernel: `steps` explicit updates u_i <- u_i + c (u_{i-1} - 2 u_i + u_{i+1}) +
 * dt sin(u_i) with zero boundaries, then f = 1/2 sum u_i^2; gradient w.r.t. the initial u.
 * u and v are caller-provided work buffers of n, overwritten every step. */
#ifndef STENCIL_H
#define STENCIL_H
#define STENCIL_C 0.25
#define STENCIL_DT 0.05
struct Problem { long n, steps; double *u0, *u, *v, *du, *dv; };
double stencil_primal(const double *u0, double *u, double *v, long n, long steps);
#endif
