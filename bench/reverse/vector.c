/* Vector reverse mode (issue 14): the gradient of an objective for 4 seeds at once (enzyme_width 4,
 * one forward sweep and one tape) against 4 separate reverse calls. Built once per objective
 * (-DOBJ_GMM or -DOBJ_STENCIL) with bench/harness/util.c. Prints one table row: the scalar
 * gradient's time, the width-4 call's time, and width-4 time per direction ÷ one scalar call.
 * Lane l is seeded with l + 1, so it must equal (l + 1) times the scalar gradient. */
#if defined(OBJ_GMM)
#include "../objectives/gmm.c"
#define NAME "GMM"
#elif defined(OBJ_STENCIL)
#include "../objectives/stencil.c"
#define NAME "stencil"
#endif
#include <string.h>
#include <time.h>

extern int enzyme_dup, enzyme_dupv, enzyme_const, enzyme_width;
void __enzyme_autodiff(void *, ...);

#if defined(OBJ_GMM)
static void grad1(Problem *p, double *D) {
  int k = p->k, d = p->d;
  memset(D, 0, sizeof(double) * (size_t)obj_deriv_len(p));
  const double *w = p->params;
  __enzyme_autodiff((void *)gmm_primal, enzyme_const, d, enzyme_const, k, enzyme_const, p->n,
                    enzyme_dup, w, D, enzyme_dup, w + k, D + k, enzyme_dup, w + k + k * d,
                    D + k + k * d, enzyme_const, p->x, enzyme_const, p->gamma, enzyme_const, p->m);
}
static void grad4(Problem *p, double *D) {
  int k = p->k, d = p->d;
  long len = obj_deriv_len(p), st = 8 * len;
  memset(D, 0, sizeof(double) * 4 * (size_t)len);
  const double *w = p->params;
  __enzyme_autodiff((void *)gmm_primal, enzyme_width, 4, enzyme_const, d, enzyme_const, k,
                    enzyme_const, p->n, enzyme_dupv, st, w, D, enzyme_dupv, st, w + k, D + k,
                    enzyme_dupv, st, w + k + k * d, D + k + k * d, enzyme_const, p->x,
                    enzyme_const, p->gamma, enzyme_const, p->m, 1.0, 2.0, 3.0, 4.0);
}
#else
static double *du4, *dv4;
static void grad1(Problem *p, double *D) {
  size_t bytes = sizeof(double) * (size_t)p->n;
  memset(D, 0, bytes);
  memset(p->du, 0, bytes);
  memset(p->dv, 0, bytes);
  __enzyme_autodiff((void *)stencil_primal, enzyme_dup, p->u0, D, enzyme_dup, p->u, p->du,
                    enzyme_dup, p->v, p->dv, enzyme_const, p->n, enzyme_const, p->steps);
}
static void grad4(Problem *p, double *D) {
  size_t bytes = 4 * sizeof(double) * (size_t)p->n;
  long st = 8 * p->n;
  memset(D, 0, bytes);
  memset(du4, 0, bytes);
  memset(dv4, 0, bytes);
  __enzyme_autodiff((void *)stencil_primal, enzyme_width, 4, enzyme_dupv, st, p->u0, D,
                    enzyme_dupv, st, p->u, du4, enzyme_dupv, st, p->v, dv4, enzyme_const, p->n,
                    enzyme_const, p->steps, 1.0, 2.0, 3.0, 4.0);
}
#endif

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static double best_of(void (*g)(Problem *, double *), Problem *p, double *D, int reps) {
  double best = 1e30;
  for (int r = 0; r < 7; ++r) {
    double t0 = now();
    for (int k = 0; k < reps; ++k) {
      g(p, D);
      __asm__ volatile("" ::: "memory");
    }
    double dt = (now() - t0) / reps;
    if (dt < best) best = dt;
  }
  return best;
}

int main(int argc, char **argv) {
  int size = argc > 1 ? atoi(argv[1]) : 1;
  Problem *p = obj_setup(size);
#if defined(OBJ_STENCIL)
  du4 = alloc_doubles(4 * p->n);
  dv4 = alloc_doubles(4 * p->n);
#endif
  long len = obj_deriv_len(p);
  double *D1 = alloc_doubles(len), *D4 = alloc_doubles(4 * len);
  grad1(p, D1);
  grad4(p, D4);
  int bad = 0;
  for (int l = 0; l < 4; ++l)
    for (long i = 0; i < len; ++i) {
      double want = (l + 1) * D1[i];
      if (fabs(D4[l * len + i] - want) > 1e-9 * (1 + fabs(want)))
        bad = 1;
    }
  int reps = size == 0 ? 20 : 3;
  double t1 = best_of(grad1, p, D1, reps), t4 = best_of(grad4, p, D4, reps);
  char desc[64];
  obj_describe(p, desc, sizeof desc);
  printf("| %s (%s) | %.3g ms | %.3g ms | %.2f |%s\n", NAME, desc, 1e3 * t1, 1e3 * t4, t4 / (4 * t1),
         bad ? " MISMATCH" : "");
  return bad;
}
