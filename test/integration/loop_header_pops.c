// Loops whose header is entered again along a path that skips a block every other path runs:
// hashbrown's scan of control groups (Rust HashMap iteration: `if mask == 0 { if items == 0
// break; find the next non-empty group }` then the body) and C loops with an early `continue`
// or a rare slow path. The header records which edge entered it; that record was moved to the
// block after it (shared pops), which the back edge from the body skips, so the reverse sweep
// read the tape out of step (a crash or wrong numbers). Reverse mode against central finite
// differences, forward mode against both.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
#include "check.h"
#include <math.h>

static const unsigned Groups[8] = {0x5, 0, 0x8001, 0x2, 0, 0, 0x7, 0x100};

// Bits of each 16-bit group mark the occupied slots of 16 values; `items` of them are visited.
static double group_scan(const double *x, int n) {
  (void)n;
  long items = 9;
  double s = 0;
  unsigned m = Groups[0];
  const double *base = x;
  const unsigned *g = Groups;
  for (;;) {
    if (m == 0) {
      if (items == 0)
        break;
      do {
        g++;
        base += 16;
        m = *g;
      } while (m == 0);
    }
    int k = __builtin_ctz(m);
    s += sqrt(base[k] + 2.0) * (double)items;
    items--;
    m &= m - 1;
  }
  return s;
}

static double early_continue(const double *x, int n) {
  double s = 0.5;
  for (int i = 0; i < n; i++) {
    if (i % 3 == 1) {
      s += x[i] * x[i];
      continue;
    }
    double t = sin(x[i]) * s;
    if (t > 0)
      s = s * 0.9 + t;
    else
      s -= 0.1 * t * x[i];
  }
  return s;
}

static double rare_slow_path(const double *x, int n) {
  double s = 0;
  int i = 0;
  while (i < n) {
    if (x[i] > 0.3) {
      if (i + 2 >= n)
        break;
      int j = i + 1;
      while (j < n && x[j] > -0.2) // find the next small value
        j++;
      s += exp(0.1 * x[i]) * (double)(j - i);
      i = j;
      continue;
    }
    s += x[i] * cos(s);
    i++;
  }
  return s;
}

// Two headers in a nest, each re-entered along a path that skips its successor.
static double nested(const double *x, int n) {
  double s = 1;
  for (int i = 0; i < n; i++) {
    if (x[i] < 0) {
      s *= 1.0 + 0.01 * x[i];
      continue;
    }
    for (int j = 0; j < i; j++) {
      if ((i + j) & 1)
        continue;
      s += 0.1 * x[j] * x[i];
    }
  }
  return s;
}

int main(void) {
  check_gradient_n(group_scan, 128, "group_scan", 1e-6);
  check_gradient_n(early_continue, 17, "early_continue", 1e-6);
  check_gradient_n(rare_slow_path, 40, "rare_slow_path", 1e-6);
  check_gradient_n(nested, 12, "nested", 1e-6);
  return check_report();
}
