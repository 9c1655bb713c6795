// Joins whose predecessor the reverse sweep rebuilds from the branch that decided it, instead of
// taping a predecessor index per visit (Reverse/ReplayValues.cpp, branchTellingPred): a
// `continue` on a counter's bit (a triangle), an if/else on a re-readable argument (a diamond), an
// early return on arguments. Next to them, joins that keep the index: a condition on a
// loop-carried float, and a join of three predecessors (the loop's latch below, entered from the
// `continue`, from the nested branch and past it). Gradients are checked
// against central differences and forward mode, and the tape's size (-synthase-tape-stats) shows
// that the rebuilt joins tape nothing.
// RUN: %synthase-cc -O0 -mllvm -synthase-tape-stats -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -mllvm -synthase-tape-stats -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -x c++ -O2 -mllvm -synthase-tape-stats -I%inputs %s -o %t4 -lm && %t4
#include "check.h"

#ifdef __cplusplus
extern "C" {
#endif
extern long __synthase_tape_peak_v1;
#ifdef __cplusplus
}
#endif

enum { N = 64 };

/* Every branch tests a counter bit or a never-written argument. */
static double rebuilt(const double *x, long n, unsigned mask) {
  if (n < 2) /* early return: the return block joins the entry and the loops' end */
    return x[0] * x[0];
  double s = 0;
  for (long i = 0; i < n; ++i) {
    if (mask & (1u << (i & 31)))
      continue; /* triangle: the latch is entered from the test or from the body */
    if (x[i] > 0)
      s += x[i] * x[(i + 1) & (N - 1)];
    else
      s -= 0.5 * x[i] * x[i];
    if ((i & 3) == 1) {
      if (x[(i + 2) & (N - 1)] < 0.3) /* a join inside a branch */
        s += 2 * x[i];
      s *= 0.999;
    }
  }
  return s;
}

/* Joins that keep the index: the condition depends on a loop-carried float, and a join of three. */
static double kept(const double *x, long n) {
  double s = 0.1;
  for (long i = 0; i < n; ++i) {
    if (s > 0.5)
      s = s * 0.5 + x[i];
    else
      s = s + x[i] * x[i];
    long k = i % 3;
    double t;
    if (k == 0)
      t = x[i];
    else if (k == 1)
      t = 2 * x[i];
    else
      t = x[i] * x[i];
    s += 0.1 * t;
  }
  return s;
}

static unsigned g_mask = 0x9a5u;
static double rebuilt_at(const double *x, void *ctx) { return rebuilt(x, *(long *)ctx, g_mask); }
static double kept_at(const double *x, void *ctx) { return kept(x, *(long *)ctx); }

int main(void) {
  static double x[N], dx[N], v[N], fd[N];
  for (int i = 0; i < N; ++i) {
    x[i] = sin(0.73 * i + 0.2);
    v[i] = cos(0.31 * i);
  }
  for (long n = 1; n <= N; n += N - 1) {
    memset(dx, 0, sizeof dx);
    __synthase_tape_peak_v1 = 0;
    __enzyme_autodiff((void *)rebuilt, enzyme_dup, x, dx, enzyme_const, n, enzyme_const, g_mask);
    long tape = __synthase_tape_peak_v1;
    check_fd_grad(rebuilt_at, &n, x, N, fd);
    for (int i = 0; i < N; ++i)
      CHECK_CLOSE(dx[i], fd[i], 1e-6, "rebuilt joins, n=%ld: d/dx[%d] vs FD", n, i);
    double tan = __enzyme_fwddiff((void *)rebuilt, enzyme_dup, x, v, enzyme_const, n, enzyme_const, g_mask);
    CHECK_CLOSE(tan, check_dot(dx, v, N), 1e-10, "rebuilt joins, n=%ld: forward and reverse agree", n);
    /* Only the latch's index per iteration; before, also the diamond's, and the return's. */
    CHECK_TRUE(tape <= 8L * n, "rebuilt joins, n=%ld: tape %ld bytes, want at most %ld", n, tape, 8L * n);
  }
  long n = N;
  memset(dx, 0, sizeof dx);
  __enzyme_autodiff((void *)kept, enzyme_dup, x, dx, enzyme_const, n);
  check_fd_grad(kept_at, &n, x, N, fd);
  for (int i = 0; i < N; ++i)
    CHECK_CLOSE(dx[i], fd[i], 1e-6, "kept joins: d/dx[%d] vs FD", i);
  double tan = __enzyme_fwddiff((void *)kept, enzyme_dup, x, v, enzyme_const, n);
  CHECK_CLOSE(tan, check_dot(dx, v, N), 1e-10, "kept joins: forward and reverse agree");
  return check_report();
}
