// C string handling inside a differentiated function: strtok / strtok_r / strsep on a local
// buffer, and strcpy / strncat into the name member of a struct that also holds an active value.
// These only move characters (no derivative) and were refused as calls without a rule. Reverse
// mode against the closed form and central differences, forward mode against reverse.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
#define _GNU_SOURCE
#include "check.h"
#include <string.h>

#define N 3
static const char *text = "a bb ccc dddd eeeee";

typedef struct {
  char name[16];
  double w;
} Tagged;

// Each token weighs the input it is paired with by its length.
static double tokens(const double *x, int n) {
  char buf[32], buf2[32], *save, *p = buf2;
  strcpy(buf, text);
  strcpy(buf2, text);
  double s = 0;
  int k = 0;
  for (char *t = strtok(buf, " "); t; t = strtok(NULL, " "))
    s += x[k++ % n] * (double)strlen(t);
  for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save))
    s += x[0] * x[1];
  char *t;
  while ((t = strsep(&p, " ")) != NULL)
    s += sin(x[2]) * (double)strlen(t);
  Tagged a;
  a.w = x[0] * x[2];
  strcpy(a.name, "w");
  strncat(a.name, "eight", 8);
  return s + a.w * (double)strlen(a.name);
}

static double fd_of(const double *x, void *u) {
  (void)u;
  return tokens(x, N);
}

int main(void) {
  double x[N] = {0.5, -1.25, 0.75}, dx[N] = {0}, g[N], v[N] = {0.3, -0.2, 0.9};
  __enzyme_autodiff((void *)tokens, enzyme_dup, x, dx, enzyme_const, N);
  check_fd_grad(fd_of, NULL, x, N, g);
  // strtok: lengths 1,2,3,4,5 paired with x0,x1,x2,x0,x1; strtok_r on the cut buffer sees "a".
  double want0 = 1 + 4 + x[1] + 6 * x[2], want1 = 2 + 5 + x[0], want2 = 3 + cos(x[2]) * 15 + 6 * x[0];
  CHECK_CLOSE(dx[0], want0, 1e-12, "d/dx0");
  CHECK_CLOSE(dx[1], want1, 1e-12, "d/dx1");
  CHECK_CLOSE(dx[2], want2, 1e-12, "d/dx2");
  for (int i = 0; i < N; i++)
    CHECK_CLOSE(dx[i], g[i], 1e-7, "d/dx%d vs FD", i);
  double t = __enzyme_fwddiff((void *)tokens, enzyme_dup, x, v, enzyme_const, N);
  CHECK_CLOSE(t, check_dot(dx, v, N), 1e-12, "forward vs reverse");
  return check_report();
}
