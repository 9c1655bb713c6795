/* A gradient called in a loop with a tape above 1 MB (`make bench` runs it; see bench/README.md).
 * Per kernel, one table row: the primal's time per call, the gradient's, their ratio, and the
 * minor page faults per gradient call in the timed loop (after one warm-up call).
 * Usage: reuse [n [calls]]. The sin chain tapes 16 bytes per step and the affine chain 8 (read
 * off the arena's capacity once), so n = 131072 means 2 MB and 1 MB of tape. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

/* Each step's sin argument depends on the previous step, so the reverse sweep takes it from the
 * tape. */
__attribute__((noinline)) double chain(const double *x, long n) {
  double s = 1;
  for (long i = 0; i < n; ++i)
    s = sin(s * x[i]) + 0.5 * x[i];
  return s;
}

/* The same recurrence without libm: about a nanosecond per step, so the tape's memory traffic
 * (and any page fault) is a large part of the gradient's time. */
__attribute__((noinline)) double affine(const double *x, long n) {
  double s = 1;
  for (long i = 0; i < n; ++i)
    s = s * x[i] + 0.25;
  return s;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static long minor_faults(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

typedef double (*kernel)(const double *, long);

static int run(const char *name, kernel f, int tape_bytes_per_step, double *x, double *dx, long n,
               int calls) {
  volatile double sink = 0;
  double t0 = now();
  for (int k = 0; k < calls; ++k) {
    sink += f(x, n);
    __asm__ volatile("" ::: "memory");
  }
  double tp = (now() - t0) / calls;
  for (long i = 0; i < n; ++i)
    dx[i] = 0;
  /* One call site per kernel (the first one is the warm-up), so the plugin sees the function. */
#define GRAD() (f == chain ? __enzyme_autodiff((void *)chain, enzyme_dup, x, dx, enzyme_const, n) \
                           : __enzyme_autodiff((void *)affine, enzyme_dup, x, dx, enzyme_const, n))
  GRAD();
  long f0 = minor_faults();
  t0 = now();
  for (int k = 0; k < calls; ++k) {
    GRAD();
    __asm__ volatile("" ::: "memory");
  }
  double tg = (now() - t0) / calls;
  long faults = minor_faults() - f0;
  /* The gradient was accumulated calls+1 times: check one entry against a central difference. */
  long j = n - 2;
  double h = 1e-6, x0 = x[j];
  x[j] = x0 + h;
  double fp = f(x, n);
  x[j] = x0 - h;
  double fm = f(x, n);
  x[j] = x0;
  double fd = (fp - fm) / (2 * h), got = dx[j] / (calls + 1);
  int ok = fabs(got - fd) <= 1e-5 * (1 + fabs(fd));
  printf("| %s, n=%ld (%.3g MB of tape), %d calls | %.3g µs | %.3g µs | **%.2f×** | %.3g |%s\n", name,
         n, (double)tape_bytes_per_step * n / (1 << 20), calls, tp * 1e6, tg * 1e6, tg / tp, (double)faults / calls,
         ok ? "" : " MISMATCH");
  return ok;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 131072;
  int calls = argc > 2 ? atoi(argv[2]) : 1000;
  double *x = malloc(sizeof(double) * n), *dx = malloc(sizeof(double) * n);
  for (long i = 0; i < n; ++i)
    x[i] = 0.5 + 0.25 * sin(0.01 * i);
  int ok = run("sin chain", chain, 16, x, dx, n, calls);
  ok &= run("affine chain", affine, 8, x, dx, n, calls);
  return ok ? 0 : 1;
}
