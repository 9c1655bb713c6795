// Inactive side effects inside differentiated code: printf/fprintf, a global call counter, an
// inactive log written to a global buffer, an opaque external call on integer data. They must
// run exactly once per derivative call (in the forward sweep), never be replayed by the reverse
// sweep, and not disturb the derivatives.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0 > %t0.out && FileCheck %s < %t0.out
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2 > %t2.out && FileCheck %s < %t2.out
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4 > %t4.out && FileCheck %s < %t4.out
// CHECK: step 0 of 3
// CHECK-NEXT: step 1 of 3
// CHECK-NEXT: step 2 of 3
// CHECK-NEXT: done
// CHECK-NEXT: step 0 of 3
// CHECK-NEXT: step 1 of 3
// CHECK-NEXT: step 2 of 3
// CHECK-NEXT: done
// CHECK-NOT: step
#include "check.h"

static int calls = 0;
static int iters = 0;
static int log_buf[64];
static int log_len = 0;

static int quiet = 0;

/* an external function on integers only: not differentiated, must run once per iteration */
__attribute__((noinline)) int inactive_hash(int v) {
  log_buf[log_len++ & 63] = v;
  return v * 2654435761u >> 7;
}

static double traced(double x, double y) {
  ++calls;
  double s = x;
  for (int i = 0; i < 3; ++i) {
    ++iters;
    if (!quiet)
      printf("step %d of %d\n", i, 3);
    (void)inactive_hash(i);
    s = s * y + sin(s);
  }
  if (!quiet)
    puts("done");
  fflush(stdout);
  return s;
}

static double traced_q(double x, double y) { return traced(x, y); }

int main(void) {
  check_seed(43);
  double x = 0.3, y = 0.8;
  /* one reverse call, one forward call: two full traces on stdout (checked by FileCheck) */
  check_g2 g = __enzyme_autodiff_check_xy((void *)traced, x, y);
  CHECK_TRUE(calls == 1, "reverse: the function body ran %d times, expected once", calls);
  CHECK_TRUE(iters == 3, "reverse: the loop ran %d iterations, expected 3", iters);
  CHECK_TRUE(log_len == 3, "reverse: inactive_hash ran %d times, expected 3", log_len);
  double tf = __enzyme_fwddiff((void *)traced, x, 1.0, y, 0.0);
  CHECK_TRUE(calls == 2, "forward: body count %d, expected 2", calls);
  CHECK_TRUE(iters == 6, "forward: loop count %d, expected 6", iters);
  CHECK_TRUE(log_len == 6, "forward: inactive_hash count %d, expected 6", log_len);
  for (int i = 0; i < 6; ++i)
    CHECK_TRUE(log_buf[i] == i % 3, "log order [%d] = %d", i, log_buf[i]);
  CHECK_CLOSE(tf, g.dx, 1e-14, "fwd vs rev d/dx");

  quiet = 1;
  double fdg[2];
  check_fd_xy(traced_q, x, y, fdg);
  CHECK_CLOSE(g.dx, fdg[0], 1e-7, "rev d/dx vs FD");
  CHECK_CLOSE(g.dy, fdg[1], 1e-7, "rev d/dy vs FD");
  return check_report();
}
