/* Benchmark row of issue 6: a derivative called inside a hot loop, with and without the inlining
 * post-pass. This one translation unit is built twice by bench/inlining.py:
 *   with:    synthase-cc -O2
 *   without: synthase-cc -O2 -mllvm -synthase-keep-derivatives-out-of-line
 * (the hidden option marks every generated derivative, and leaves every placeholder, noinline;
 * nothing else in the pipeline differs). Each kernel loops over its data calling a derivative,
 * once through Enzyme's C convention (__enzyme_autodiff / __enzyme_fwddiff) and once through a
 * placeholder (synthase_autodiff_*, the same IR shape as rustc's #[autodiff]). Output: one JSON
 * line per kernel with the median time of one kernel call and a checksum. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <synthase/autodiff.h>

extern int enzyme_out, enzyme_const, enzyme_dup;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

/* --- the functions differentiated --- */
/* small: a few flops and two libm calls */
double small_f(double x, double a) { return x * sin(a * x) + exp(-x * x); }
/* medium: an 8-step loop */
double medium_f(double x, double a) {
  double s = 0;
  for (int k = 0; k < 8; ++k)
    s += sin(a * x + k) * exp(-k * x / 8);
  return s + x * x * x;
}
/* row: softplus(w . x) over a row of ROW weights; the gradient w.r.t. w is added into dw */
enum { ROW = 16 };
double row_f(const double *w, const double *x) {
  double z = 0;
  for (int j = 0; j < ROW; ++j)
    z += w[j] * x[j];
  return log1p(exp(z));
}

/* --- placeholders (rustc-style) --- */
synthase_autodiff_reverse(small_f, Active, Const, ActiveOnly)
double d_small(double x, double a) { return 0; }
synthase_autodiff_forward(small_f, Dual, Const, DualOnly)
double t_small(double x, double dx, double a) { return 0; }
synthase_autodiff_reverse(medium_f, Active, Const, ActiveOnly)
double d_medium(double x, double a) { return 0; }
synthase_autodiff_forward(medium_f, Dual, Const, DualOnly)
double t_medium(double x, double dx, double a) { return 0; }

typedef struct {
  int n;
  double *xs, a;
  double *rows, *w, *dw;
} Data;

#define KERNEL static __attribute__((noinline)) double

/* --- Enzyme C convention --- */
KERNEL c_rev_small(Data *d) {
  double s = 0;
  for (int i = 0; i < d->n; ++i)
    s += __enzyme_autodiff((void *)small_f, enzyme_out, d->xs[i], enzyme_const, d->a);
  return s;
}
KERNEL c_fwd_small(Data *d) {
  double s = 0;
  for (int i = 0; i < d->n; ++i)
    s += __enzyme_fwddiff((void *)small_f, d->xs[i], 1.0, enzyme_const, d->a);
  return s;
}
KERNEL c_rev_medium(Data *d) {
  double s = 0;
  for (int i = 0; i < d->n; ++i)
    s += __enzyme_autodiff((void *)medium_f, enzyme_out, d->xs[i], enzyme_const, d->a);
  return s;
}
KERNEL c_fwd_medium(Data *d) {
  double s = 0;
  for (int i = 0; i < d->n; ++i)
    s += __enzyme_fwddiff((void *)medium_f, d->xs[i], 1.0, enzyme_const, d->a);
  return s;
}
KERNEL c_rev_row(Data *d) {
  memset(d->dw, 0, ROW * sizeof(double));
  for (int i = 0; i < d->n / ROW; ++i)
    __enzyme_autodiff((void *)row_f, enzyme_dup, d->w, d->dw, enzyme_const, d->rows + i * ROW);
  double s = 0;
  for (int j = 0; j < ROW; ++j)
    s += d->dw[j];
  return s;
}

/* --- placeholders --- */
KERNEL ph_rev_small(Data *d) {
  double s = 0;
  for (int i = 0; i < d->n; ++i)
    s += d_small(d->xs[i], d->a);
  return s;
}
KERNEL ph_fwd_small(Data *d) {
  double s = 0;
  for (int i = 0; i < d->n; ++i)
    s += t_small(d->xs[i], 1.0, d->a);
  return s;
}
KERNEL ph_rev_medium(Data *d) {
  double s = 0;
  for (int i = 0; i < d->n; ++i)
    s += d_medium(d->xs[i], d->a);
  return s;
}
KERNEL ph_fwd_medium(Data *d) {
  double s = 0;
  for (int i = 0; i < d->n; ++i)
    s += t_medium(d->xs[i], 1.0, d->a);
  return s;
}

static const struct {
  const char *name, *conv, *mode, *what;
  double (*run)(Data *);
} Kernels[] = {
    {"small", "C", "rev", "x sin(ax) + exp(-x^2)", c_rev_small},
    {"small", "C", "fwd", "x sin(ax) + exp(-x^2)", c_fwd_small},
    {"medium", "C", "rev", "8-step sum of sin * exp", c_rev_medium},
    {"medium", "C", "fwd", "8-step sum of sin * exp", c_fwd_medium},
    {"row", "C", "rev", "softplus(w . x), 16 weights, dup", c_rev_row},
    {"small", "placeholder", "rev", "x sin(ax) + exp(-x^2)", ph_rev_small},
    {"small", "placeholder", "fwd", "x sin(ax) + exp(-x^2)", ph_fwd_small},
    {"medium", "placeholder", "rev", "8-step sum of sin * exp", ph_rev_medium},
    {"medium", "placeholder", "fwd", "8-step sum of sin * exp", ph_fwd_medium},
};

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  double budget = argc > 1 ? atof(argv[1]) : 0.25; /* seconds per kernel; 0: one call each */
  Data d = {.n = 4096, .a = 0.7};
  d.xs = malloc(d.n * sizeof(double));
  d.rows = malloc(d.n * sizeof(double));
  d.w = malloc(ROW * sizeof(double));
  d.dw = malloc(ROW * sizeof(double));
  for (int i = 0; i < d.n; ++i) {
    d.xs[i] = -1.5 + 3.0 * i / d.n;
    d.rows[i] = sin(0.37 * i);
  }
  for (int j = 0; j < ROW; ++j)
    d.w[j] = 0.05 * (j % 5) - 0.1;
  enum { MAXS = 200 };
  static double t[MAXS];
  for (unsigned k = 0; k < sizeof Kernels / sizeof Kernels[0]; ++k) {
    double check = Kernels[k].run(&d), start = now();
    int ns = 0;
    while (budget > 0 && ns < MAXS && (ns < 5 || now() - start < budget)) {
      double t0 = now();
      check = Kernels[k].run(&d);
      t[ns++] = now() - t0;
    }
    if (ns == 0)
      t[ns++] = 0;
    qsort(t, ns, sizeof(double), cmp);
    printf("{\"kernel\": \"%s\", \"conv\": \"%s\", \"mode\": \"%s\", \"what\": \"%s\", "
           "\"calls\": %d, \"med\": %.9g, \"min\": %.9g, \"max\": %.9g, \"checksum\": %.17g}\n",
           Kernels[k].name, Kernels[k].conv, Kernels[k].mode, Kernels[k].what,
           strcmp(Kernels[k].name, "row") ? d.n : d.n / ROW, t[ns / 2], t[0], t[ns - 1], check);
  }
  return 0;
}
