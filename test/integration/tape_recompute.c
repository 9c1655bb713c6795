// What the reverse sweep rebuilds instead of taping (docs/design.md, "Primal values in the reverse
// sweep"), measured with -mllvm -synthase-tape-stats (__synthase_tape_peak_v1, reset before each
// kernel):
// - k-means' distance: `c[l] - p[l]` is recomputed from loads of never-written arguments, the
//   inner loops' final counters from their bounds, and the running minimum `best = dist < best ?
//   dist : best` costs one counter per point (Reverse/RunningSelect.cpp), not a flag per pair.
// - a triangular product `out[r] += L[idx++] * xc[c]` over a scratch buffer: `idx` is rebuilt
//   from the loop counter, and `xc[c]`, which the inner loop does not change, is taped once per
//   inner loop rather than once per product.
// - counted loops that count down, or test `!=`, whose final counters are rebuilt too.
// - det by expansion by minors, a recursive callee: the matrix, which no caller writes, is
//   re-read there (Signature::UnchangedArgs), and `sign * A[r][c]` is rebuilt from the popped
//   sign once the reverse sweep is complete (Reverse/TapeTrim.cpp); which way a join was entered
//   is rebuilt from the branch that decided it (`used & (1u << c)`, `r == ell`).
// Gradients are checked against hand-written ones (k-means, analytic) or central differences, and
// against forward mode along a direction, at -O0, -O2 and -O3, C and C++.
// RUN: %synthase-cc -O0 -mllvm -synthase-tape-stats -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -mllvm -synthase-tape-stats -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -mllvm -synthase-tape-stats -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -mllvm -synthase-tape-stats -I%inputs %s -o %t4 -lm && %t4
#include "check.h"
#include "tape_kmeans.h"

static void check_kmeans(void) {
  enum { N = 400, K = 6, D = 5 };
  static double pts[N * D], cen[K * D], g[K * D], want[K * D], v[K * D];
  for (int q = 0; q < N * D; ++q) pts[q] = sin(0.37 * q) + 0.3 * cos(1.3 * q);
  for (int q = 0; q < K * D; ++q) {
    cen[q] = 0.8 * sin(0.91 * q + 0.2);
    v[q] = cos(0.5 * q);
  }
  __synthase_tape_peak_v1 = 0;
  __enzyme_autodiff((void *)kmeans, enzyme_const, pts, enzyme_dup, cen, g, enzyme_const, (long)N,
                    enzyme_const, (long)K, enzyme_const, (long)D);
  long tape = __synthase_tape_peak_v1;
  kmeans_gradient(pts, cen, N, K, D, want);
  for (int q = 0; q < K * D; ++q)
    CHECK_CLOSE(g[q], want[q], 1e-12, "k-means d/dc[%d]", q);
  double tan = __enzyme_fwddiff((void *)kmeans, enzyme_const, pts, enzyme_dup, cen, v, enzyme_const, (long)N,
                                enzyme_const, (long)K, enzyme_const, (long)D);
  CHECK_CLOSE(tan, check_dot(g, v, K * D), 1e-10, "k-means: forward and reverse agree");
  /* Before: both operands of every comparison (16 bytes per pair) and the inner loop's counter
   * (8), then one flag per pair; now one counter per point (tape_running_select.c). */
  CHECK_TRUE(tape <= 16L * N + 512, "k-means tape %ld bytes, want at most %ld", tape, 16L * N + 512);
}

/* ---- a triangular product over a scratch buffer, repeated ---- */
static double tri(const double *L, const double *x, long d, long reps) {
  double *xc = (double *)malloc(sizeof(double) * d), *out = (double *)malloc(sizeof(double) * d);
  double s = 0;
  for (long t = 0; t < reps; ++t) {
    for (long j = 0; j < d; ++j)
      xc[j] = sin(x[j] + 0.1 * t);
    for (long j = 0; j < d; ++j)
      out[j] = x[j];
    long idx = 0;
    for (long c = 0; c < d; ++c)
      for (long r = c + 1; r < d; ++r)
        out[r] += L[idx++] * xc[c];
    for (long j = 0; j < d; ++j)
      s += out[j] * out[j];
  }
  free(xc);
  free(out);
  return s;
}

enum { TD = 16, TREPS = 40, TL = TD * (TD - 1) / 2 };

static double tri_at(double *w) { return tri(w, w + TL, TD, TREPS); }

static void check_tri(void) {
  static double w[TL + TD], dw[TL + TD], v[TL + TD];
  for (int q = 0; q < TL + TD; ++q) {
    w[q] = 0.5 * sin(0.7 * q + 0.3);
    v[q] = cos(0.29 * q);
  }
  __synthase_tape_peak_v1 = 0;
  __enzyme_autodiff((void *)tri, enzyme_dup, w, dw, enzyme_dup, w + TL, dw + TL, enzyme_const, (long)TD,
                    enzyme_const, (long)TREPS);
  long tape = __synthase_tape_peak_v1;
  for (int q = 0; q < TL + TD; ++q) {
    double h = 1e-6, w0 = w[q];
    w[q] = w0 + h;
    double fp = tri_at(w);
    w[q] = w0 - h;
    double fm = tri_at(w);
    w[q] = w0;
    CHECK_CLOSE(dw[q], (fp - fm) / (2 * h), 1e-6, "triangular product d/dw[%d] vs FD", q);
  }
  double tan = __enzyme_fwddiff((void *)tri, enzyme_dup, w, v, enzyme_dup, w + TL, v + TL, enzyme_const, (long)TD,
                                enzyme_const, (long)TREPS);
  CHECK_CLOSE(tan, check_dot(dw, v, TL + TD), 1e-10, "triangular product: forward and reverse agree");
  /* Before: xc[c] and idx for every product, 16 bytes each of the TL per repetition. Now xc[c]
   * once per inner loop, and what sin and the squares need per element: well under 8 bytes per
   * product. */
  CHECK_TRUE(tape < 8L * TL * TREPS, "triangular tape %ld bytes, want less than %ld", tape, 8L * TL * TREPS);
}

/* ---- loops counting down and testing != ---- */
static double down(const double *x, long n) {
  double s = 0;
  for (long i = n - 1; i > 0; --i)
    s += sin(x[i]) * x[i - 1];
  for (long i = 0; i != n; ++i)
    s += x[i] * x[i] * x[i];
  return s;
}

static void check_down(void) {
  enum { N = 300 };
  static double x[N], dx[N], v[N];
  for (int i = 0; i < N; ++i) {
    x[i] = 0.6 * cos(0.41 * i);
    v[i] = sin(0.17 * i + 1);
  }
  __enzyme_autodiff((void *)down, enzyme_dup, x, dx, enzyme_const, (long)N);
  for (int i = 0; i < N; ++i) {
    double want = 3 * x[i] * x[i];
    if (i > 0)
      want += cos(x[i]) * x[i - 1];
    if (i + 1 < N)
      want += sin(x[i + 1]);
    CHECK_CLOSE(dx[i], want, 1e-12, "counting down d/dx[%d]", i);
  }
  double tan = __enzyme_fwddiff((void *)down, enzyme_dup, x, v, enzyme_const, (long)N);
  CHECK_CLOSE(tan, check_dot(dx, v, N), 1e-10, "counting down: forward and reverse agree");
}

/* ---- det by expansion by minors ---- */
static double minor_of(const double *A, int ell, int r, unsigned used) {
  if (r == ell)
    return 1;
  double s = 0, sign = 1;
  for (int c = 0; c < ell; ++c) {
    if (used & (1u << c))
      continue;
    s += sign * A[r * ell + c] * minor_of(A, ell, r + 1, used | (1u << c));
    sign = -sign;
  }
  return s;
}
static double det(const double *A, int ell) { return minor_of(A, ell, 0, 0); }

static void check_det(void) {
  /* Calls that loop (minors of sizes 6 down to 1), loop iterations that recurse, calls. */
  enum { L = 6, LOOPING = 1 + 6 + 30 + 120 + 360 + 720, RECURSING = LOOPING - 1 + 720, CALLS = RECURSING + 1 };
  static double A[L * L], dA[L * L], v[L * L];
  for (int q = 0; q < L * L; ++q) {
    A[q] = sin(1.7 * q + 0.4) + (q % (L + 1) == 0 ? 2.0 : 0.0);
    v[q] = cos(0.23 * q);
  }
  __synthase_tape_peak_v1 = 0;
  __enzyme_autodiff((void *)det, enzyme_dup, A, dA, enzyme_const, L);
  long tape = __synthase_tape_peak_v1;
  for (int q = 0; q < L * L; ++q) { /* det is linear in each entry: central differences are exact */
    double h = 1e-3, a0 = A[q];
    A[q] = a0 + h;
    double fp = det(A, L);
    A[q] = a0 - h;
    double fm = det(A, L);
    A[q] = a0;
    CHECK_CLOSE(dA[q], (fp - fm) / (2 * h), 1e-9, "det d/dA[%d] vs FD", q);
  }
  double tan = __enzyme_fwddiff((void *)det, enzyme_dup, A, v, enzyme_const, L);
  CHECK_CLOSE(tan, check_dot(dA, v, L * L), 1e-10, "det: forward and reverse agree");
  /* The minor and the sign per iteration that recurses (sign * A[r][c] was a third value). Which
   * way each iteration went (`used & (1u << c)`) and which way each call returned (`r == ell`)
   * are rebuilt from the counter and the arguments: they took 8L * L * LOOPING + 8L * CALLS. */
  long want = 16L * RECURSING + 512;
  CHECK_TRUE(tape <= want, "det tape %ld bytes, want at most %ld", tape, want);
}

int main(void) {
  check_kmeans();
  check_tri();
  check_down();
  check_det();
  return check_report();
}
