// -mllvm -synthase-tape-stats: every reverse call site keeps the largest tape of any call in
// __synthase_tape_peak_v1 (bytes), which make bench prints next to a hand-written adjoint's
// storage. A loop whose reverse needs one double per iteration (a sine: calls are never
// recomputed) tapes at least 8 n bytes, and the gradient is unchanged (analytic). Adjoint slots of values used across blocks
// and loops (the loop-carried sum, the branch) get their zero where they are used
// (Reverse/SlotInits.cpp): the gradient is checked analytically and against forward mode at -O0,
// -O2 and -O3, C and C++.
// RUN: %synthase-cc -O0 -mllvm -synthase-tape-stats -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -mllvm -synthase-tape-stats -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -mllvm -synthase-tape-stats -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -mllvm -synthase-tape-stats -I%inputs %s -o %t4 -lm && %t4
#include "check.h"

/* f = sum_i x_{i+1} sin(x_i) + (x_i > 0 ? x_i^2 : -x_i) */
static double f(const double *x, long n) {
  double s = 0;
  for (long i = 0; i + 1 < n; ++i) {
    s += x[i + 1] * sin(x[i]);
    if (x[i] > 0) s += x[i] * x[i];
    else s -= x[i];
  }
  return s;
}

int main(void) {
  enum { N = 4096 };
  static double x[N], dx[N];
  for (int i = 0; i < N; ++i) x[i] = 0.001 * (i % 97) - 0.04;
  for (int rep = 0; rep < 3; ++rep) {
    for (int i = 0; i < N; ++i) dx[i] = 0;
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, (long)N);
  }
  for (int i = 0; i < N; ++i) {
    double want = 0;
    if (i + 1 < N) want += cos(x[i]) * x[i + 1] + (x[i] > 0 ? 2 * x[i] : -1);
    if (i > 0) want += sin(x[i - 1]);
    CHECK_CLOSE(dx[i], want, 1e-12, "df/dx[%d]", i);
  }
  /* Forward mode agrees, along a few unit directions. */
  static double v[N];
  for (int i = 1; i < N; i += 1023) {
    v[i] = 1;
    CHECK_CLOSE(__enzyme_fwddiff((void *)f, enzyme_dup, x, v, enzyme_const, (long)N), dx[i], 1e-12,
                "forward df/dx[%d]", i);
    v[i] = 0;
  }
  CHECK_TRUE(__synthase_tape_peak_v1 >= 8L * (N - 1), "tape peak %ld bytes, want at least %ld",
        __synthase_tape_peak_v1, 8L * (N - 1));
  CHECK_TRUE(__synthase_tape_peak_v1 < 64L * N, "tape peak %ld bytes, want less than %ld",
        __synthase_tape_peak_v1, 64L * N);
  return check_report();
}
