// OpenMP stencil benchmark (issue 18): a 2-D explicit diffusion step with a nonlinear source over
// an n x n grid (`parallel for`), then the loss sum(v^2) (`parallel for reduction`). Reports, for
// 1, 2 and 4 threads, the primal time, the reverse-mode gradient time, their ratio, and the
// speed-up of each over its 1-thread time. The gradients of all thread counts must agree.
//   stencil N REPS   (prints markdown table rows)
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

static double loss(const double *u, double *v, int n) {
#pragma omp parallel for schedule(static)
  for (int i = 1; i < n - 1; ++i)
    for (int j = 1; j < n - 1; ++j) {
      double c = u[i * n + j];
      v[i * n + j] = c + 0.1 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1] + u[i * n + j + 1] - 4 * c) +
                     0.05 * sin(c);
    }
  double s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static)
  for (int i = 1; i < n - 1; ++i)
    for (int j = 1; j < n - 1; ++j)
      s += v[i * n + j] * v[i * n + j];
  return s;
}

static volatile double sink;

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1024, reps = argc > 2 ? atoi(argv[2]) : 20;
  size_t sz = (size_t)n * n;
  double *u = malloc(sz * sizeof(double)), *v = calloc(sz, sizeof(double)), *du = malloc(sz * sizeof(double)),
         *dv = calloc(sz, sizeof(double)), *g1 = malloc(sz * sizeof(double));
  for (size_t k = 0; k < sz; ++k)
    u[k] = sin(0.001 * k) + 0.5 * cos(0.0007 * k);
  int threads[] = {1, 2, 4};
  double p1 = 0, r1 = 0;
  int bad = 0;
  for (int t = 0; t < 3; ++t) {
    omp_set_num_threads(threads[t]);
    loss(u, v, n); /* warm the team and the pages */
    double t0 = omp_get_wtime();
    for (int r = 0; r < reps; ++r)
      sink = loss(u, v, n);
    double primal = (omp_get_wtime() - t0) / reps;
    for (size_t k = 0; k < sz; ++k)
      du[k] = dv[k] = 0;
    __enzyme_autodiff((void *)loss, enzyme_dup, u, du, enzyme_dup, v, dv, enzyme_const, n);
    t0 = omp_get_wtime();
    for (int r = 0; r < reps; ++r) {
      for (size_t k = 0; k < sz; ++k)
        du[k] = 0;
      __enzyme_autodiff((void *)loss, enzyme_dup, u, du, enzyme_dup, v, dv, enzyme_const, n);
    }
    double grad = (omp_get_wtime() - t0) / reps;
    if (t == 0) {
      p1 = primal;
      r1 = grad;
      for (size_t k = 0; k < sz; ++k)
        g1[k] = du[k];
      /* one entry against a central difference */
      size_t k = (size_t)(n / 2) * n + n / 3;
      double keep = u[k], h = 1e-4; /* the loss is a sum of 10^6 terms: a larger step */
      u[k] = keep + h;
      double lp = loss(u, v, n);
      u[k] = keep - h;
      double lm = loss(u, v, n);
      u[k] = keep;
      if (fabs((lp - lm) / (2 * h) - du[k]) > 1e-4 * (1 + fabs(du[k]))) {
        fprintf(stderr, "OpenMP stencil: du[%zu] = %.10g, central difference %.10g\n", k, du[k], (lp - lm) / (2 * h));
        bad = 1;
      }
    } else {
      for (size_t k = 0; k < sz; ++k)
        if (fabs(du[k] - g1[k]) > 1e-12 * (1 + fabs(g1[k]))) {
          bad = 1;
          break;
        }
    }
    printf("| OpenMP stencil %dx%d, %d thread%s | %.2f ms | %.2f ms | %.2f | %.2fx | %.2fx |%s\n", n, n, threads[t],
           threads[t] > 1 ? "s" : "", primal * 1e3, grad * 1e3, grad / primal, p1 / primal, r1 / grad,
           bad ? " MISMATCH" : "");
  }
  return bad;
}
