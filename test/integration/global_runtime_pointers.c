// A global struct whose doubles are differentiated next to pointers the program assigns at run
// time that carry no derivative data (a label, a FILE *): the doubles keep their shadow and the
// pointers simply have none (a workspace buffer kept in such a struct is refused instead:
// lit/diagnostics/global_workspace_struct.c). Reverse and forward against the analytic gradient.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t3 -lm && %t3
#include "check.h"

static struct state {
  double acc;
  const char *label;
  FILE *log;
  double last;
} st;

/* (x0^2 + x1^2 + x2^2) x2 through the struct's doubles */
static double f(const double *x) {
  st.acc = 0;
  for (int i = 0; i < 3; i++)
    st.acc += x[i] * x[i];
  st.last = x[2];
  if (!st.label)
    st.label = "run";
  return st.acc * st.last;
}

int main(void) {
  st.log = stderr;
  const double x[3] = {1.5, -2, 0.75};
  double want[3] = {2 * x[0] * x[2], 2 * x[1] * x[2], 3 * x[2] * x[2] + x[0] * x[0] + x[1] * x[1]};
  for (int round = 0; round < 2; ++round) {
    double dx[3] = {0, 0, 0};
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx);
    for (int i = 0; i < 3; i++) {
      double v[3] = {0, 0, 0};
      v[i] = 1;
      double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, v);
      CHECK_CLOSE(dx[i], want[i], 1e-12, "reverse d/dx[%d] round %d", i, round);
      CHECK_CLOSE(t, want[i], 1e-12, "forward d/dx[%d] round %d", i, round);
    }
  }
  CHECK_TRUE(st.log == stderr && st.label != NULL, "the pointers keep their values");
  return check_report();
}
