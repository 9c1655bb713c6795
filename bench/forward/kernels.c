/* Forward-mode kernels for issue 3's targets: the tangent of a dot product and of a 1-D stencil
 * sweep, scalar and width 4 (enzyme_width), each timed against its primal. Prints one table row
 * per kernel: primal time, tangent / primal, width-4 tangent / primal (4 directions at once). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

extern int enzyme_dup, enzyme_const, enzyme_width, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);
typedef struct { double d[4]; } T4;
T4 __enzyme_fwddiff_w4(void *, ...);
void __enzyme_fwddiff_v(void *, ...);
void __enzyme_fwddiff_v4(void *, ...);

__attribute__((noinline)) double dot(const double *a, const double *b, long n) {
  double s = 0;
  for (long i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

__attribute__((noinline)) void stencil(const double *u, double *v, long n) {
  for (long i = 1; i + 1 < n; ++i) v[i] = u[i] + 0.1 * (u[i - 1] - 2 * u[i] + u[i + 1]) + 0.01 * sin(u[i]);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* The empty asm with a memory clobber keeps the optimizer from hoisting or merging repetitions. */
#define TIME(var, reps, body)                                                                   \
  do {                                                                                         \
    double best = 1e30;                                                                        \
    for (int r_ = 0; r_ < 7; ++r_) {                                                           \
      double t0_ = now();                                                                      \
      for (int k_ = 0; k_ < (reps); ++k_) { body; __asm__ volatile("" ::: "memory"); }                                            \
      double dt_ = (now() - t0_) / (reps);                                                     \
      if (dt_ < best) best = dt_;                                                              \
    }                                                                                          \
    var = best;                                                                                \
  } while (0)

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 100000;
  double *a = malloc(8 * n), *b = malloc(8 * n), *da = malloc(8 * 4 * n), *db = malloc(8 * 4 * n);
  double *v = malloc(8 * n), *dv = malloc(8 * 4 * n);
  for (long i = 0; i < n; ++i) { a[i] = sin(i * 0.1); b[i] = cos(i * 0.3); }
  for (long i = 0; i < 4 * n; ++i) { da[i] = 0.5 + 0.001 * i; db[i] = 0.25; dv[i] = 0; }
  /* Let the buffers escape, so the barrier in TIME really may change them. */
  __asm__ volatile("" : : "r"(a), "r"(b), "r"(da), "r"(db), "r"(v), "r"(dv) : "memory");
  volatile double sink = 0;
  double tp, tt, t4;
  int reps = 20;
  TIME(tp, reps, sink += dot(a, b, n));
  TIME(tt, reps, sink += __enzyme_fwddiff((void *)dot, enzyme_dup, a, da, enzyme_dup, b, db, enzyme_const, n));
  TIME(t4, reps, { T4 r = __enzyme_fwddiff_w4((void *)dot, enzyme_width, 4, enzyme_dup, a, da, da + n, da + 2 * n, da + 3 * n,
                                              enzyme_dup, b, db, db + n, db + 2 * n, db + 3 * n, enzyme_const, n);
                   sink += r.d[3]; });
  printf("| dot product n=%ld | %.1f µs | %.2f× | %.2f× |\n", n, tp * 1e6, tt / tp, t4 / tp);
  TIME(tp, reps, stencil(a, v, n));
  TIME(tt, reps, __enzyme_fwddiff_v((void *)stencil, enzyme_dup, a, da, enzyme_dupnoneed, v, dv, enzyme_const, n));
  TIME(t4, reps, __enzyme_fwddiff_v4((void *)stencil, enzyme_width, 4, enzyme_dup, a, da, da + n, da + 2 * n, da + 3 * n,
                                     enzyme_dupnoneed, v, dv, dv + n, dv + 2 * n, dv + 3 * n, enzyme_const, n));
  printf("| stencil n=%ld | %.1f µs | %.2f× | %.2f× |\n", n, tp * 1e6, tt / tp, t4 / tp);
  /* correctness: tangent of dot equals sum(da*b + a*db) */
  double want = 0;
  for (long i = 0; i < n; ++i) want += da[i] * b[i] + a[i] * db[i];
  double got = __enzyme_fwddiff((void *)dot, enzyme_dup, a, da, enzyme_dup, b, db, enzyme_const, n);
  if (fabs(got - want) > 1e-9 * (1 + fabs(want))) { printf("dot tangent wrong: %g vs %g\n", got, want); return 1; }
  return sink == 12345.0;
}
