// Counted loops that can also leave to an abort, as Rust's bounds checks panic: the loop's one exit
// that can return decides its trip count, and the reverse counts the iterations down instead of
// taping a flag and the counter per iteration. In `guarded` the header holds the aborting test
// (`i == len`) and the latch the loop's own (`++i != n`): the counter leaves one below the header's
// bound (taking the header's bound gave one reverse iteration too many, and a wrong gradient or
// a crash). Also nested, and with the abort in the middle of a header-tested loop. Tape measured
// with -mllvm -synthase-tape-stats; gradients against central differences, forward against reverse.
// RUN: %synthase-cc -O0 -mllvm -synthase-tape-stats -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -mllvm -synthase-tape-stats -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -mllvm -synthase-tape-stats -I%inputs %s -o %t3 -lm && %t3
#include "check.h"
#include <stdlib.h>

enum { N = 4, M = 1000, R = 10, C = 100 };
static double table[M];

__attribute__((noinline)) static double guarded(const double *x, int n, int len) {
  double s = 0;
  int i = 0;
  do {
    if (i == len)
      abort();
    s = sin(s * 0.1 + table[i] * x[i % N]) + x[(i + 1) % N] * s * 0.01;
    ++i;
  } while (i != n);
  return s * x[(i - 1) % N];
}

__attribute__((noinline)) static double nested(const double *x, int rows, int cols, int len) {
  double s = 0;
  for (int r = 0; r < rows; r++) {
    int c = 0;
    do {
      if (r * cols + c >= len)
        abort();
      s = cos(s * 0.2 + table[r * cols + c] * x[(r + c) % N]);
    } while (++c != cols);
    s += x[r % N] * c * 1e-3;
  }
  return s;
}

__attribute__((noinline)) static double middle(const double *x, const int *idx, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    if (idx[i] >= N)
      abort();
    s = tanh(s + x[idx[i]] * table[i]);
  }
  return s;
}

static int idx[M];
static double run_guarded(const double *x) { return guarded(x, M, M + 5); }
static double run_nested(const double *x) { return nested(x, R, C, M); }
static double run_middle(const double *x) { return middle(x, idx, M); }
static double fd_of(const double *x, void *f) { return ((double (*)(const double *))f)(x); }

static void check(const char *name, double (*f)(const double *), long max_tape) {
  double x[N] = {0.8, -0.3, 0.2, 0.5}, dx[N] = {0}, g[N], v[N] = {0.3, -0.7, 0.4, 0.9};
  __synthase_tape_peak_v1 = 0;
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx);
  long tape = __synthase_tape_peak_v1;
  check_fd_grad(fd_of, (void *)f, x, N, g);
  for (int k = 0; k < N; k++)
    CHECK_CLOSE(dx[k], g[k], 1e-6, "%s: reverse d/dx%d vs FD", name, k);
  double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, v);
  CHECK_CLOSE(t, check_dot(dx, v, N), 1e-11, "%s: forward vs reverse", name);
  CHECK_TRUE(tape <= max_tape, "%s: tape %ld bytes, want at most %ld", name, tape, max_tape);
}

int main(void) {
  for (int i = 0; i < M; i++) {
    table[i] = cos(0.3 * i);
    idx[i] = (i * 7) % N;
  }
  // Per iteration: at most two doubles (the sine's or cosine's argument and s); a flag and the
  // counter on top, as a loop not known to be counted tapes them, would exceed it.
  check("guarded", run_guarded, 16 * M + 4096);
  check("nested", run_nested, 16 * R * C + 4096);
  check("middle", run_middle, 24 * M + 4096); // and x[idx[i]], idx[i]
  return check_report();
}
