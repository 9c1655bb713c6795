/* Driver for integer_moved_floats.ll.
   merge: v = two sorted halves of h each; after the merge v is sorted, so the result is
   sum_k (k + 1) s_k^2 and d/dv_i = 2 (rank_i + 1) v_i.
   shapes: d/dx of sum 3 r^2 (even pairs) + w h (odd pairs). Both modes, tolerance 1e-12. */
#include <math.h>
#include <stdio.h>
#include <string.h>
double grad_merge(double *v, double *dv, long h);
double tangent_merge(double *v, double *dv, long h);
double grad_shapes(double *x, double *dx, long m);
double tangent_shapes(double *x, double *dx, long m);

static int check(const char *what, int i, double got, double want) {
  if (fabs(got - want) <= 1e-12 * (1 + fabs(want)))
    return 0;
  printf("%s[%d]: got %.17g want %.17g\n", what, i, got, want);
  return 1;
}

int main(void) {
  int bad = 0;
  enum { H = 11, N = 2 * H };
  double v0[N], rank[N];
  for (int i = 0; i < H; ++i) {
    v0[i] = 0.1 + 0.3 * i;          /* 0.1, 0.4, ... */
    v0[H + i] = 0.25 + 0.3 * i;     /* interleaves with the first half */
  }
  for (int i = 0; i < N; ++i) {
    int r = 0;
    for (int j = 0; j < N; ++j)
      r += v0[j] < v0[i];
    rank[i] = r;
  }
  double v[N], dv[N] = {0};
  memcpy(v, v0, sizeof v);
  grad_merge(v, dv, H);
  for (int i = 0; i < N; ++i) {
    double want = 2 * (rank[i] + 1) * v0[i];
    bad |= check("merge reverse", i, dv[i], want);
    double e[N] = {0};
    e[i] = 1;
    memcpy(v, v0, sizeof v);
    bad |= check("merge forward", i, tangent_merge(v, e, H), want);
  }

  enum { M = 5 };
  double x[2 * M] = {0.5, 9.0, 1.2, 0.7, 3.0, 4.0, 0.9, 0.2, -1.5, 2.5}, dx[2 * M] = {0};
  grad_shapes(x, dx, M);
  for (int i = 0; i < 2 * M; ++i) {
    int pair = i / 2, second = i % 2;
    double want = pair % 2 == 0 ? (second ? 0 : 6 * x[i]) : (second ? x[i - 1] : x[i + 1]);
    bad |= check("shapes reverse", i, dx[i], want);
    double e[2 * M] = {0};
    e[i] = 1;
    bad |= check("shapes forward", i, tangent_shapes(x, e, M), want);
  }
  return bad;
}
