// A differentiated function whose callee is defined in another file (helpers.c). Build with
// full LTO, the plugin at compile and link time:
//   synthase-cc -O2 -flto -c main.c helpers.c && synthase-cc -O2 -flto main.o helpers.o -lm
// The call site waits for the link, where both bodies are in one module.
#include <math.h>
#include <stdio.h>
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
double helper_sum(const double *x, int n);
void helper_log(const char *what, int k);

static double loss(const double *x, int n) {
  helper_log("loss", n);
  double h = helper_sum(x, n);
  return h * h + exp(x[0]);
}

int main(void) {
  enum { N = 4 };
  double x[N] = {0.3, 1.2, -0.5, 2.0}, g[N] = {0};
  __enzyme_autodiff((void *)loss, enzyme_dup, x, g, enzyme_const, N);
  double h = 0;
  for (int i = 0; i < N; i++)
    h += sin(x[i]) * x[i];
  int passed = 0;
  for (int i = 0; i < N; i++) {
    double want = 2 * h * (cos(x[i]) * x[i] + sin(x[i])) + (i == 0 ? exp(x[0]) : 0);
    double e[N] = {0};
    e[i] = 1;
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, x, e, enzyme_const, N);
    passed += fabs(g[i] - want) <= 1e-12 * (1 + fabs(want));
    passed += fabs(t - want) <= 1e-12 * (1 + fabs(want));
  }
  printf("lto callee: %d of %d checks passed\n", passed, 2 * N);
  return passed != 2 * N;
}
