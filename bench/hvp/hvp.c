/* Hessian-vector product by forward over reverse against the gradient it differentiates, on
 * k-means (objectives/kmeans.c): one tangent sweep of the reverse-mode gradient along v gives the
 * gradient and H v together.  Prints one table row; checks H v against central differences of
 * the gradient along v.
 *
 * usage: hvp SIZE (0 small, 1 medium, 2 large) */
#include "../objectives/kmeans.c"
#include <time.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);

static void grad(const double *P, const double *C, double *J, long n, long k, long d) {
  for (long q = 0; q < k * d; ++q) J[q] = 0;
  __enzyme_autodiff((void *)kmeans_cost, enzyme_const, P, enzyme_dup, C, J, enzyme_const, n,
                    enzyme_const, k, enzyme_const, d);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static Problem *P;
static double *J, *Hv, *v;
static volatile double sink;
static void run_primal(void) { sink += obj_primal(P); }
static void run_grad(void) { grad(P->points, P->centroids, J, P->n, P->k, P->d); }
static void run_hvp(void) {
  __enzyme_fwddiff((void *)grad, enzyme_const, P->points, enzyme_dup, P->centroids, v, enzyme_dup,
                   J, Hv, enzyme_const, P->n, enzyme_const, P->k, enzyme_const, P->d);
}

/* Median of batched samples over about 0.3 s, after one warm-up call. */
static double median_time(void (*f)(void)) {
  double s[101], t0 = now();
  f();
  long batch = 1;
  while ((now() - t0) * (double)batch < 2e-3 && batch < (1L << 20)) batch *= 2;
  int n = 0;
  double start = now();
  while (n < 101 && (n < 5 || now() - start < 0.3)) {
    double a = now();
    for (long b = 0; b < batch; ++b) f();
    s[n++] = (now() - a) / (double)batch;
  }
  qsort(s, (size_t)n, sizeof *s, cmp);
  return s[n / 2];
}

int main(int argc, char **argv) {
  P = obj_setup(argc > 1 ? atoi(argv[1]) : 1);
  long len = P->k * P->d;
  J = alloc_doubles(len);
  Hv = alloc_doubles(len);
  v = alloc_doubles(len);
  double *g1 = alloc_doubles(len), *g2 = alloc_doubles(len);
  Rng r;
  rng_seed(&r, 5);
  for (long q = 0; q < len; ++q) v[q] = rng_normal(&r);
  run_hvp();
  /* The gradient is piecewise linear: central differences along v are exact up to rounding
   * unless a point changes its centroid within the step. */
  double h = 1e-6, rho = 0, *C = P->centroids, *c0 = alloc_doubles(len);
  for (long q = 0; q < len; ++q) c0[q] = C[q], C[q] = c0[q] + h * v[q];
  grad(P->points, C, g1, P->n, P->k, P->d);
  for (long q = 0; q < len; ++q) C[q] = c0[q] - h * v[q];
  grad(P->points, C, g2, P->n, P->k, P->d);
  for (long q = 0; q < len; ++q) C[q] = c0[q];
  for (long q = 0; q < len; ++q) {
    double fd = (g1[q] - g2[q]) / (2 * h);
    rho = fmax(rho, fabs(fd - Hv[q]) / fmax(1.0, fabs(fd) + fabs(Hv[q])));
  }
  double tp = median_time(run_primal), tg = median_time(run_grad), th = median_time(run_hvp);
  char desc[128];
  obj_describe(P, desc, sizeof desc);
  printf("| k-means (%s) | %.3g µs | %.3g µs (%.2f× primal) | %.3g µs | **%.2f×** | %s |\n", desc,
         tp * 1e6, tg * 1e6, tg / tp, th * 1e6, th / tg, rho < 1e-6 ? "ok" : "MISMATCH");
  return rho < 1e-6 ? 0 : 1;
}
