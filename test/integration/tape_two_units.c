// Two translation units with reverse call sites share one tape arena per thread: the buffer one
// unit's gradient grew is the one the other unit's gradient reuses. Linked normally (the arena
// and its helpers are linkonce_odr in a comdat, the linker keeps one), as C with a C++ unit, and
// through full LTO (the IR linker keeps one). Gradients are checked against hand-written ones.
// RUN: %synthase-cc -O2 -I%inputs %s %inputs/tape_unit_b.c -o %t1 -lm && %t1
// RUN: %synthase-cc -O0 -I%inputs -c %s -o %t.a.o
// RUN: %synthase-cxx -x c++ -O2 -c %inputs/tape_unit_b.c -o %t.b.o
// RUN: %synthase-cxx %t.a.o %t.b.o -o %t2 -lm && %t2
// RUN: %synthase-cc -flto -O2 -I%inputs %s %inputs/tape_unit_b.c -o %t3 -lm && %t3
#include "check.h"

struct tape_arena {
  void *buf;
  unsigned long cap;
  unsigned long registered;
};
extern __thread struct tape_arena __synthase_tape_arena_v1;

void grad_in_b(const double *x, double *dx, long n);

/* sum_i x_{i+1} sin(x_i): each sine goes on the tape (a call is never recomputed). */
static double pairs(const double *x, long n) {
  double s = 0;
  for (long i = 0; i + 1 < n; ++i)
    s += x[i + 1] * sin(x[i]);
  return s;
}

static int check_a(long n) {
  double *x = (double *)malloc(sizeof(double) * n), *dx = (double *)calloc(n, sizeof(double));
  for (long i = 0; i < n; ++i)
    x[i] = 0.5 + 0.3 * sin(0.7 * i);
  __enzyme_autodiff((void *)pairs, enzyme_dup, x, dx, enzyme_const, n);
  int bad = 0;
  for (long i = 0; i < n; ++i) {
    double g = (i + 1 < n ? cos(x[i]) * x[i + 1] : 0) + (i > 0 ? sin(x[i - 1]) : 0);
    bad += check_relerr(dx[i], g) > 1e-12;
  }
  free(x);
  free(dx);
  return bad;
}

static int check_b(long n) {
  double *x = (double *)malloc(sizeof(double) * n), *dx = (double *)calloc(n, sizeof(double));
  for (long i = 0; i < n; ++i)
    x[i] = 0.5 + 0.3 * cos(0.3 * i);
  grad_in_b(x, dx, n);
  int bad = 0;
  for (long i = 0; i < n; ++i) {
    double g = (i + 1 < n ? -1.5 * sin(1.5 * x[i]) * x[i + 1] : 0) + (i > 0 ? cos(1.5 * x[i - 1]) : 0);
    bad += check_relerr(dx[i], g) > 1e-12;
  }
  free(x);
  free(dx);
  return bad;
}

int main(void) {
  CHECK_TRUE(check_a(50000) == 0, "unit a gradient, n=50000");
  void *buf = __synthase_tape_arena_v1.buf;
  unsigned long cap = __synthase_tape_arena_v1.cap;
  CHECK_TRUE(buf != NULL, "unit a left its buffer in the arena");
  CHECK_TRUE(check_b(20000) == 0, "unit b gradient, n=20000");
  CHECK_TRUE(__synthase_tape_arena_v1.buf == buf && __synthase_tape_arena_v1.cap == cap,
             "unit b reused unit a's buffer");
  CHECK_TRUE(check_b(300000) == 0, "unit b gradient, n=300000");
  CHECK_TRUE(__synthase_tape_arena_v1.cap > cap, "unit b grew the shared buffer");
  buf = __synthase_tape_arena_v1.buf;
  cap = __synthase_tape_arena_v1.cap;
  CHECK_TRUE(check_a(100000) == 0, "unit a gradient, n=100000");
  CHECK_TRUE(__synthase_tape_arena_v1.buf == buf && __synthase_tape_arena_v1.cap == cap,
             "unit a reused the buffer unit b grew");
  return check_report();
}
