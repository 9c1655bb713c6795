/* The C side of the Rust GMM comparison: bench/objectives/gmm.c differentiated by synthase-cc on
 * the data frontends/rust/examples/gmm.rs generates (the same LCG), timed the same way. Prints one
 * table row and the `check:` line the Rust program prints, which bench.sh compares. */
#include "../objectives/gmm.c"
#include <string.h>
#include <time.h>

extern int enzyme_const, enzyme_dup;
double __enzyme_autodiff(void *, ...);

static unsigned long long lcg_state;
static double lcg_next(void) {
  lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return ((double)(lcg_state >> 11) / (double)(1ULL << 53)) * 2.0 - 1.0;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static int d, k, n;
static double *params, *x, *g, value;

static void primal(void) { value = gmm_primal(d, k, n, params, params + k, params + k + k * d, x, 1.0, 0); }
static void gradient(void) {
  long np = (long)k * (1 + d + d * (d + 1) / 2);
  memset(g, 0, sizeof(double) * (size_t)np);
  __enzyme_autodiff((void *)gmm_primal, enzyme_const, d, enzyme_const, k, enzyme_const, n,
                    enzyme_dup, params, g, enzyme_dup, params + k, g + k, enzyme_dup,
                    params + k + k * d, g + k + k * d, enzyme_const, x, enzyme_const, 1.0,
                    enzyme_const, 0);
}

static double best_of(void (*f)(void), int reps) {
  double best = 1e30;
  for (int r = 0; r < 7; ++r) {
    double t0 = now();
    for (int i = 0; i < reps; ++i) {
      f();
      __asm__ volatile("" ::: "memory");
    }
    double dt = (now() - t0) / reps;
    if (dt < best) best = dt;
  }
  return best;
}

int main(int argc, char **argv) {
  static const int D[] = {2, 10, 10}, K[] = {5, 25, 50}, N[] = {200, 1000, 2000};
  int size = argc > 1 ? atoi(argv[1]) : 1;
  d = D[size], k = K[size], n = N[size];
  long np = (long)k * (1 + d + d * (d + 1) / 2);
  params = malloc(sizeof(double) * (size_t)np);
  x = malloc(sizeof(double) * (size_t)n * d);
  g = malloc(sizeof(double) * (size_t)np);
  lcg_state = 16;
  for (long i = 0; i < np; ++i) params[i] = lcg_next() * (i < k ? 1.0 : 0.3);
  for (long i = 0; i < (long)n * d; ++i) x[i] = lcg_next();
  int reps = size == 0 ? 50 : 3;
  double tp = best_of(primal, reps), tg = best_of(gradient, reps);
  double norm = 0;
  for (long i = 0; i < np; ++i) norm += g[i] * g[i];
  printf("| GMM (d=%d K=%d n=%d) | C, synthase-cc -O2 | %.3f ms | %.3f ms | %.2f |\n", d, k, n, 1e3 * tp,
         1e3 * tg, tg / tp);
  printf("check: primal %.12e gradient-norm %.12e\n", value, sqrt(norm));
  return 0;
}
