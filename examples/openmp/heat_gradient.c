// OpenMP example: the gradient of a parallel 2-D heat simulation.
//
// An n x n field evolves for a number of explicit diffusion steps; each step is an OpenMP
// `parallel for` over the rows, with two buffers used in turn. The loss compares the final field
// with a target (a `parallel for reduction`). One __enzyme_autodiff call gives the gradient of
// the loss with respect to the whole initial field and to the diffusion coefficient: reverse
// mode runs every step's reverse as a parallel loop too, each thread with its own tape.
//
// Build and run:
//   synthase-cc -O2 -fopenmp examples/openmp/heat_gradient.c -o heat_gradient -lm
//   OMP_NUM_THREADS=4 ./heat_gradient
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

/* One explicit step: out = in + kappa * laplacian(in), zero boundary. */
static void heat_step(const double *in, double *out, double kappa, int n) {
#pragma omp parallel for schedule(static)
  for (int i = 1; i < n - 1; ++i)
    for (int j = 1; j < n - 1; ++j) {
      double c = in[i * n + j];
      out[i * n + j] = c + kappa * (in[(i - 1) * n + j] + in[(i + 1) * n + j] + in[i * n + j - 1] + in[i * n + j + 1] - 4 * c);
    }
}

/* loss = sum (u_T - target)^2 after `steps` steps from u0; a and b are work buffers. */
static double loss(const double *u0, double kappa, const double *target, double *a, double *b, int n, int steps) {
  memcpy(a, u0, sizeof(double) * n * n);
  for (int s = 0; s < steps; ++s) {
    heat_step(a, b, kappa, n);
    double *t = a;
    a = b;
    b = t;
  }
  double l = 0;
#pragma omp parallel for reduction(+ : l)
  for (int k = 0; k < n * n; ++k)
    l += (a[k] - target[k]) * (a[k] - target[k]);
  return l;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 64, steps = argc > 2 ? atoi(argv[2]) : 10;
  size_t sz = (size_t)n * n;
  double *u0 = calloc(sz, sizeof(double)), *target = calloc(sz, sizeof(double)), *a = calloc(sz, sizeof(double)),
         *b = calloc(sz, sizeof(double)), *du0 = calloc(sz, sizeof(double)), *da = calloc(sz, sizeof(double)),
         *db = calloc(sz, sizeof(double));
  for (int i = 1; i < n - 1; ++i)
    for (int j = 1; j < n - 1; ++j) {
      u0[i * n + j] = exp(-((i - n / 2.0) * (i - n / 2.0) + (j - n / 3.0) * (j - n / 3.0)) / (0.02 * n * n));
      target[i * n + j] = 0.5 * sin(3.0 * i / n) * sin(2.0 * j / n);
    }
  double kappa = 0.2;

  double t0 = omp_get_wtime();
  double l = loss(u0, kappa, target, a, b, n, steps);
  double tp = omp_get_wtime() - t0;
  t0 = omp_get_wtime();
  /* enzyme_out: the derivative with respect to kappa is returned; du0 receives the field's. */
  double dkappa = __enzyme_autodiff((void *)loss, enzyme_dup, u0, du0, enzyme_out, kappa, enzyme_const, target,
                                    enzyme_dup, a, da, enzyme_dup, b, db, enzyme_const, n, enzyme_const, steps);
  double tg = omp_get_wtime() - t0;
  printf("threads %d, %dx%d grid, %d steps: loss %.6f (primal %.2f ms, gradient %.2f ms)\n", omp_get_max_threads(),
         n, n, steps, l, tp * 1e3, tg * 1e3);

  /* Check: d loss / d kappa by forward mode and by central differences; two entries of du0. */
  double dk_fwd = __enzyme_fwddiff((void *)loss, enzyme_dup, u0, calloc(sz, sizeof(double)), kappa, 1.0,
                                   enzyme_const, target, enzyme_dup, a, calloc(sz, sizeof(double)), enzyme_dup, b,
                                   calloc(sz, sizeof(double)), enzyme_const, n, enzyme_const, steps);
  double h = 1e-6;
  double dk_fd = (loss(u0, kappa + h, target, a, b, n, steps) - loss(u0, kappa - h, target, a, b, n, steps)) / (2 * h);
  printf("d loss / d kappa: reverse %.9f  forward %.9f  finite diff %.9f\n", dkappa, dk_fwd, dk_fd);
  int bad = fabs(dkappa - dk_fd) > 1e-5 * (1 + fabs(dk_fd)) || fabs(dkappa - dk_fwd) > 1e-9 * (1 + fabs(dk_fwd));
  int probes[2] = {(n / 2) * n + n / 3, (n / 3) * n + n / 2};
  for (int p = 0; p < 2; ++p) {
    int k = probes[p];
    double keep = u0[k];
    u0[k] = keep + h;
    double lp = loss(u0, kappa, target, a, b, n, steps);
    u0[k] = keep - h;
    double lm = loss(u0, kappa, target, a, b, n, steps);
    u0[k] = keep;
    double fd = (lp - lm) / (2 * h);
    printf("d loss / d u0[%d]: reverse %.9f  finite diff %.9f\n", k, du0[k], fd);
    bad |= fabs(du0[k] - fd) > 1e-5 * (1 + fabs(fd));
  }
  printf(bad ? "MISMATCH\n" : "ok\n");
  return bad;
}
