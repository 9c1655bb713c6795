// Three shortcuts of the reverse sweep, checked numerically (they change which code runs, so a
// wrong condition shows up as a wrong gradient):
// - a counted loop whose reverse only adds multiples of its outgoing adjoints is skipped when
//   those are all zero: k-means' distance loop per centroid after the running minimum, where only
//   the nearest centroid's adjoint is nonzero (the loops that store, or that pop, still run);
// - the adjoint of a load that reads one address in every iteration (`x[i]` in
//   `out[j] += L[idx] * x[i]`) is summed in a local and added to the shadow once per loop;
// - an in-place update `y[i] += a * b` leaves y's shadow alone in the reverse instead of zeroing
//   it and adding it back.
// Gradients against central differences, forward mode against reverse, at -O0, -O2, -O3.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
#include "check.h"

enum { NP = 40, K = 5, D = 3, N = K * D };
static double pts[NP * D];

static double dist2(const double *a, const double *b) {
  double s = 0;
  for (int i = 0; i < D; i++)
    s += (a[i] - b[i]) * (a[i] - b[i]);
  return s;
}

// k-means cost: the nearest centroid per point (a running minimum over the centroids).
static double kmeans(const double *c, int n) {
  (void)n;
  double cost = 0;
  for (int p = 0; p < NP; p++) {
    double best = INFINITY;
    for (int j = 0; j < K; j++) {
      double d = dist2(&pts[p * D], &c[j * D]);
      best = d < best ? d : best;
    }
    cost += best;
  }
  return cost;
}

// A packed lower-triangular product over a scratch vector, then a norm: `x[i]` is read by every
// iteration of the inner loop, and `out[j]` is updated in place.
static double triangular(const double *v, int n) {
  double x[D + 2], out[D + 2];
  int m = D + 2;
  for (int i = 0; i < m; i++) {
    x[i] = v[i % n] - 0.1 * i;
    out[i] = v[(i + 3) % n] * x[i];
  }
  int idx = 0;
  for (int i = 0; i < m; i++)
    for (int j = i + 1; j < m; j++) {
      out[j] = out[j] + v[idx % n] * x[i];
      idx++;
    }
  double s = 0;
  for (int i = 0; i < m; i++)
    s += out[i] * out[i] + sin(x[i]) * out[i];
  return s;
}

// Matrix-vector accumulation in place, with the vector also rewritten between the passes.
static double matvec(const double *v, int n) {
  double y[4] = {0, 0, 0, 0}, z[4];
  for (int r = 0; r < 2; r++) {
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < n; j++)
        y[i] += sin(i + 2.0 * j) * v[j] * (r + 1);
    for (int i = 0; i < 4; i++)
      z[i] = y[i] * y[i];
    for (int i = 0; i < 4; i++)
      y[i] = z[i] - y[i];
  }
  return y[0] + 2 * y[1] - y[2] * y[3];
}

typedef double (*fn)(const double *, int);
static double fd_of(const double *x, void *f) { return ((fn)f)(x, N); }

static void check(fn f, const char *name) {
  double x[N], dx[N] = {0}, g[N], v[N];
  check_fill(x, N, -1, 1);
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N);
  check_fd_grad(fd_of, (void *)f, x, N, g);
  for (int k = 0; k < N; k++)
    CHECK_CLOSE(dx[k], g[k], 1e-6, "%s: reverse d/dx%d vs FD", name, k);
  check_fill(v, N, -1, 1);
  double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, v, enzyme_const, N);
  CHECK_CLOSE(t, check_dot(g, v, N), 1e-6, "%s: forward vs FD", name);
  CHECK_CLOSE(t, check_dot(dx, v, N), 1e-11, "%s: forward vs reverse", name);
}

int main(void) {
  check_seed(41);
  check_fill(pts, NP * D, -2, 2);
  check(kmeans, "k-means running minimum");
  check(triangular, "triangular product");
  check(matvec, "in-place mat-vec");
  // Called again: the skipped loops leave nothing behind that the next call would see.
  check(kmeans, "k-means again");
  return check_report();
}
