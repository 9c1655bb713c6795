// Loads of scratch memory rebuilt from what was stored there (Reverse/StoreForwarding.cpp): GMM's
// `xc[j] = x[i][j] - mu[c][j]`, filled in one loop and read by the next ones, is recomputed in
// the reverse sweep instead of taped per read. Checked with -mllvm -synthase-tape-stats, against
// central differences and forward mode, and with programs where the rule must not fire: the
// buffer written again between the fill and the read, written through another pointer that may
// alias it, written by a callee, read over more entries than were filled (stale values from the
// previous round), or filled only on some iterations.
// RUN: %synthase-cc -O0 -mllvm -synthase-tape-stats -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -mllvm -synthase-tape-stats -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -mllvm -synthase-tape-stats -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -mllvm -synthase-tape-stats -I%inputs %s -o %t4 -lm && %t4
#include "check.h"

enum { N = 60, C = 5, D = 6, P = C * D };
static double xs[N * D];

/* GMM's inner part: per point and component, a centred copy in scratch memory, then a diagonal
 * scaling and a triangular product that read it. MODE 0 is the shape the rule is for; the others
 * must not be forwarded. One function per mode, so that each one's IR holds only its own stores. */
#define MIXTURE(NAME, MODE)                                                                        \
  static double NAME(const double *x, const double *mu, int n, int k, int d) {                   \
    double *xc = (double *)(MODE >= 3 ? calloc(d, sizeof(double)) : malloc(sizeof(double) * d));    \
    double *q = (double *)malloc(sizeof(double) * d);                                             \
    double *other = (double *)malloc(sizeof(double) * d);                                         \
    double s = 0;                                                                                 \
    for (int i = 0; i < n; ++i)                                                                   \
      for (int c = 0; c < k; ++c) {                                                               \
        for (int j = 0; j < (MODE == 3 ? d - 1 : d); ++j) {                                       \
          if (MODE == 4 && (i + j) % 3 == 0)                                                      \
            continue; /* not filled this round: the read sees an older value */                   \
          xc[j] = x[i * d + j] - mu[c * d + j];                                                   \
        }                                                                                         \
        if (MODE == 1)                                                                            \
          for (int j = 0; j < d; ++j)                                                             \
            xc[j] *= 1.5; /* written again between the fill and the reads */                      \
        if (MODE == 2) {                                                                          \
          double *alias = (i & 1) ? xc : other; /* may be xc */                                   \
          for (int j = 0; j < d; ++j)                                                             \
            alias[j] = 0.5 * mu[c * d + j];                                                       \
        }                                                                                         \
        for (int j = 0; j < d; ++j)                                                               \
          q[j] = (1.0 + 0.1 * mu[c * d + j] * mu[c * d + j]) * xc[j];                             \
        for (int cc = 0; cc < d; ++cc)                                                            \
          for (int r = cc + 1; r < d; ++r)                                                        \
            q[r] += 0.2 * mu[c * d + r] * xc[cc];                                                 \
        double sq = 0;                                                                            \
        for (int j = 0; j < d; ++j)                                                               \
          sq += q[j] * q[j];                                                                      \
        s += exp(-0.05 * sq);                                                                     \
      }                                                                                           \
    free(xc);                                                                                     \
    free(q);                                                                                      \
    free(other);                                                                                  \
    return s;                                                                                     \
  }
MIXTURE(mixture0, 0)
MIXTURE(mixture1, 1)
MIXTURE(mixture2, 2)
MIXTURE(mixture3, 3)
MIXTURE(mixture4, 4)
typedef double (*mixture_fn)(const double *, const double *, int, int, int);

/* Must not fire: a callee scales the scratch buffer between the fill and the reads. */
__attribute__((noinline)) static void scale(double *v, int d) {
  for (int j = 0; j < d; ++j)
    v[j] *= 0.75;
}

static double through_callee(const double *x, const double *mu, int n, int k, int d) {
  double *xc = (double *)malloc(sizeof(double) * d);
  double s = 0;
  for (int i = 0; i < n; ++i)
    for (int c = 0; c < k; ++c) {
      for (int j = 0; j < d; ++j)
        xc[j] = x[i * d + j] - mu[c * d + j];
      scale(xc, d);
      for (int j = 0; j < d; ++j)
        s += sin(xc[j]) * mu[c * d + j];
    }
  free(xc);
  return s;
}

static double g[P], v[P];
static long tape;

static void reset(void) {
  for (int q = 0; q < P; ++q) {
    g[q] = 0;
    v[q] = cos(0.5 * q + 0.1);
  }
  __synthase_tape_peak_v1 = 0;
}

/* Reverse then forward mode of F(xs, mu, N, C, D): the tangent along v; the reverse call's tape. */
#define RUN(F, mu)                                                                                \
  (reset(), __enzyme_autodiff((void *)F, enzyme_const, xs, enzyme_dup, mu, g, enzyme_const, (int)N,  \
                              enzyme_const, (int)C, enzyme_const, (int)D),                        \
   tape = __synthase_tape_peak_v1,                                                                \
   __enzyme_fwddiff((void *)F, enzyme_const, xs, enzyme_dup, mu, v, enzyme_const, (int)N, enzyme_const, \
                    (int)C, enzyme_const, (int)D))

static mixture_fn primal_;
static double primal_at(const double *mu, void *ctx) { (void)ctx; return primal_(xs, mu, N, C, D); }

static void verify(const char *what, mixture_fn f, const double *mu, double tan, long tape_max) {
  static double fd[P];
  primal_ = f;
  check_fd_grad(primal_at, NULL, mu, P, fd);
  for (int q = 0; q < P; ++q)
    CHECK_CLOSE(g[q], fd[q], 1e-7, "%s d/dmu[%d]", what, q);
  CHECK_CLOSE(tan, check_dot(g, v, P), 1e-10, "%s: forward and reverse agree", what);
  if (tape_max > 0)
    CHECK_TRUE(tape <= tape_max, "%s: tape %ld bytes, want at most %ld", what, tape, tape_max);
}

int main(void) {
  static double mu[P];
  for (int q = 0; q < N * D; ++q)
    xs[q] = sin(0.37 * q) + 0.3 * cos(1.3 * q);
  for (int q = 0; q < P; ++q)
    mu[q] = 0.8 * sin(0.91 * q + 0.2);
  /* Per point and component: q[j] (the squares' operands) and exp; no xc. Before:
   * xc[j] of the diagonal loop and xc[cc] of the triangular one, 2 d slots more. */
  verify("forwarded fill", mixture0, mu, RUN(mixture0, mu), 8L * N * C * (D + 2) + 1024);
  verify("written again", mixture1, mu, RUN(mixture1, mu), 0);
  verify("written through an alias", mixture2, mu, RUN(mixture2, mu), 0);
  verify("read past the fill", mixture3, mu, RUN(mixture3, mu), 0);
  verify("filled on some iterations", mixture4, mu, RUN(mixture4, mu), 0);
  verify("written by a callee", through_callee, mu, RUN(through_callee, mu), 0);
  return check_report();
}
