// Running selects (Reverse/RunningSelect.cpp): `best = d < best ? d : best` chained through a
// counted loop's header costs one tape slot per execution of the loop (the counter of the last
// iteration that took the new value), not one flag per iteration. Checked with
// -mllvm -synthase-tape-stats, against analytic gradients or central differences, and against
// forward mode, including chains the rule must leave alone (the running value used by other
// arithmetic in the loop, the select's result used twice) and loops that run zero times or count
// down.
// RUN: %synthase-cc -O0 -mllvm -synthase-tape-stats -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -mllvm -synthase-tape-stats -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -mllvm -synthase-tape-stats -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -mllvm -synthase-tape-stats -I%inputs %s -o %t4 -lm && %t4
#include "check.h"
#include "tape_kmeans.h"

enum { N = 300, K = 7, D = 4 };
static double pts[N * D];

/* k-means' cost (kmeans in tape_kmeans.h) with the running value as the select's true operand, a
 * maximum of -dist, counting the centroids down. Both run with centroid 5 a copy of centroid 2:
 * ties happen, and go to the lower index, as in kmeans_gradient. */
static double kmeans_down(const double *pts, const double *cen, long n, long k, long d) {
  double cost = 0;
  for (long i = 0; i < n; ++i) {
    double best = -INFINITY;
    for (long j = k - 1; j >= 0; --j) {
      double dist = 0;
      for (long l = 0; l < d; ++l) {
        double t = cen[j * d + l] - pts[i * d + l];
        dist += t * t;
      }
      best = best > -dist ? best : -dist; /* ties: the new one, the lower index */
    }
    cost -= best;
  }
  return cost;
}

/* A running maximum over a prefix whose length varies (zero for every third point): the loop may
 * not run, and then the start value's adjoint is the only one. */
static double prefix_max(const double *pts, const double *w, long n, long k, long unused) {
  (void)unused;
  double s = 0;
  for (long i = 0; i < n; ++i) {
    double m = w[0] * pts[i];
    for (long j = 0; j < i % 3 * k; ++j) {
      double v = w[j + 1] * pts[i * 2 + j % 2];
      m = v > m ? v : m;
    }
    s += m * m;
  }
  return s;
}

/* Must not fire: the select's result is used twice. */
static double select_used_twice(const double *w, long n) {
  double s = 0, best = w[0];
  for (long j = 1; j < n; ++j) {
    double nb = sin(w[j]) < best ? sin(w[j]) : best;
    s += nb * nb;
    best = nb;
  }
  return s + best;
}

static double kmeans_at(const double *c, void *ctx) { (void)ctx; return kmeans(pts, c, N, K, D); }
static double down_at(const double *c, void *ctx) { (void)ctx; return kmeans_down(pts, c, N, K, D); }
static double prefix_at(const double *w, void *ctx) { (void)ctx; return prefix_max(pts, w, N / 2, K, 0); }
static double inside_at(const double *w, void *ctx) { (void)ctx; return used_inside(w, K * D); }
static double twice_at(const double *w, void *ctx) { (void)ctx; return select_used_twice(w, K * D); }

static double g[K * D], v[K * D];

/* Compares g (and the tangent along v) with want, or with central differences of `at`. */
static void verify(const char *what, double (*at)(const double *, void *), const double *x, int len, double tan,
                   long tape, long tape_max, const double *want) {
  static double fd[K * D];
  if (!want) {
    check_fd_grad(at, NULL, x, len, fd);
    want = fd;
  }
  for (int q = 0; q < len; ++q)
    CHECK_CLOSE(g[q], want[q], want == fd ? 1e-7 : 1e-12, "%s d/dx[%d]", what, q);
  CHECK_CLOSE(tan, check_dot(g, v, len), 1e-10, "%s: forward and reverse agree", what);
  if (tape_max > 0)
    CHECK_TRUE(tape <= tape_max, "%s: tape %ld bytes, want at most %ld", what, tape, tape_max);
}

static void reset(void) {
  for (int q = 0; q < K * D; ++q) {
    g[q] = 0;
    v[q] = cos(0.5 * q + 0.1);
  }
  __synthase_tape_peak_v1 = 0;
}

/* Reverse then forward mode of F(pts, x, a, b[, c]); the tape of the reverse call. */
#define RUN3(F, x, a, b, c)                                                                       \
  (reset(), __enzyme_autodiff((void *)F, enzyme_const, pts, enzyme_dup, x, g, enzyme_const, (long)(a), \
                              enzyme_const, (long)(b), enzyme_const, (long)(c)),                      \
   tape = __synthase_tape_peak_v1,                                                                \
   __enzyme_fwddiff((void *)F, enzyme_const, pts, enzyme_dup, x, v, enzyme_const, (long)(a), enzyme_const, \
                    (long)(b), enzyme_const, (long)(c)))
#define RUN1(F, x, a)                                                                             \
  (reset(), __enzyme_autodiff((void *)F, enzyme_dup, x, g, enzyme_const, (long)(a)),               \
   tape = __synthase_tape_peak_v1, __enzyme_fwddiff((void *)F, enzyme_dup, x, v, enzyme_const, (long)(a)))

int main(void) {
  static double cen[K * D], want[K * D], w[K * D];
  long tape = 0;
  double tan;
  for (int q = 0; q < N * D; ++q)
    pts[q] = sin(0.37 * q) + 0.3 * cos(1.3 * q);
  for (int q = 0; q < K * D; ++q) {
    cen[q] = 0.8 * sin(0.91 * q + 0.2);
    w[q] = sin(1.7 * q + 0.4);
  }
  for (int l = 0; l < D; ++l)
    cen[5 * D + l] = cen[2 * D + l];
  kmeans_gradient(pts, cen, N, K, D, want);
  /* One slot per point for the last pick, one for the inner loop's final counter and the sum
   * (before: one flag per point-centroid pair, 8 N K bytes more). */
  tan = RUN3(kmeans, cen, N, K, D);
  verify("k-means", kmeans_at, cen, K * D, tan, tape, 16L * N + 512, want);
  tan = RUN3(kmeans_down, cen, N, K, D);
  verify("k-means counting down", down_at, cen, K * D, tan, tape, 16L * N + 512, want);
  tan = RUN3(prefix_max, w, N / 2, K, 0);
  verify("prefix maximum", prefix_at, w, K * D, tan, tape, 32L * (N / 2) + 512, NULL);
  tan = RUN1(used_inside, w, K * D);
  verify("running value used inside the loop", inside_at, w, K * D, tan, tape, 0, NULL);
  tan = RUN1(select_used_twice, w, K * D);
  verify("select used twice", twice_at, w, K * D, tan, tape, 0, NULL);
  return check_report();
}
