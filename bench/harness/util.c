/* Deterministic inputs and finite differences shared by every objective. */
#include "bench.h"
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* splitmix64: tiny, portable and identical on every machine, so sizes are reproducible. */
void rng_seed(Rng *r, unsigned long long seed) { r->s = seed * 0x9E3779B97F4A7C15ull + 1; }

static unsigned long long rng_next(Rng *r) {
  unsigned long long z = (r->s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double rng_uniform(Rng *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }

double rng_normal(Rng *r) {
  double u = rng_uniform(r), v = rng_uniform(r);
  return sqrt(-2.0 * log(1.0 - u)) * cos(6.283185307179586 * v);
}

double *alloc_doubles(long n) {
  double *p = calloc(n > 0 ? (size_t)n : 1, sizeof(double));
  if (!p) abort();
  return p;
}

double fd_dense(void (*f)(Problem *, double *y), Problem *p, double *x, long n_in, long n_out,
                double *D, long max_cols) {
  long stride = (n_in + max_cols - 1) / max_cols;
  if (stride < 1) stride = 1;
  double *yp = alloc_doubles(n_out), *ym = alloc_doubles(n_out);
  long done = 0;
  for (long j = 0; j < n_in; j += stride, ++done) {
    double x0 = x[j];
    /* cbrt(eps) balances truncation against cancellation for central differences. */
    double h = cbrt(DBL_EPSILON) * fmax(1.0, fabs(x0));
    x[j] = x0 + h;
    f(p, yp);
    x[j] = x0 - h;
    f(p, ym);
    x[j] = x0;
    for (long r = 0; r < n_out; ++r) D[r * n_in + j] = (yp[r] - ym[r]) / (2 * h);
  }
  free(yp);
  free(ym);
  return (double)done / (double)n_in;
}
