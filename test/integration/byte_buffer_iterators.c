// An iterator of pointers kept in a byte buffer and copied with memcpy, whose fields only
// out-of-line callees touch (Rust's `zip` and `next` in a debug build store their state in
// `[48 x i8]` allocas this way). The copy's layout comes from what the callees do through the
// parameter that receives the buffer: pointer fields, whose shadows move with the copy and which
// the reverse sweep must not add up as doubles (it did: a crash in the reverse sweep). Each
// callee recurses before its work, so it keeps its own derivative.
// Gradients against central differences, forward against reverse.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
#include "check.h"

#define N 7

typedef struct {
  double *out, *out_end;
  const double *in, *in_end;
} Zip;

static void zip_init(void *z, double *out, const double *in, long n, int d) {
  if (d > 0) {
    zip_init(z, out, in, n, d - 1);
    return;
  }
  Zip *s = (Zip *)z;
  s->out = out;
  s->out_end = out + n;
  s->in = in;
  s->in_end = in + n;
}

static int zip_next(void *z, double **o, const double **i, int d) {
  if (d > 0)
    return zip_next(z, o, i, d - 1);
  Zip *s = (Zip *)z;
  if (s->out == s->out_end || s->in == s->in_end)
    return 0;
  *o = s->out++;
  *i = s->in++;
  return 1;
}

// y[k] = c * x[k]^3 through the copied iterator; returns a weighted sum of y.
static double cube(double *x, int n) {
  double y[N];
  _Alignas(8) unsigned char made[sizeof(Zip)], live[sizeof(Zip)];
  zip_init(made, y, x, n, 1);
  memcpy(live, made, sizeof live);
  double *o;
  const double *i;
  while (zip_next(live, &o, &i, 2))
    *o = 1.5 * *i * *i * *i;
  double s = 0;
  for (int k = 0; k < n; k++)
    s += (k + 1) * y[k] + sin(y[k]);
  return s;
}

static double fd_of(const double *x, void *unused) {
  (void)unused;
  double c[N];
  memcpy(c, x, sizeof c);
  return cube(c, N);
}

int main(void) {
  double x[N], dx[N] = {0}, g[N], v[N];
  check_seed(31);
  check_fill(x, N, -1, 1);
  __enzyme_autodiff((void *)cube, enzyme_dup, x, dx, enzyme_const, N);
  check_fd_grad(fd_of, NULL, x, N, g);
  for (int k = 0; k < N; k++)
    CHECK_CLOSE(dx[k], g[k], 1e-7, "reverse d/dx%d vs FD", k);
  check_fill(v, N, -1, 1);
  double t = __enzyme_fwddiff((void *)cube, enzyme_dup, x, v, enzyme_const, N);
  CHECK_CLOSE(t, check_dot(g, v, N), 1e-7, "forward vs FD");
  CHECK_CLOSE(t, check_dot(dx, v, N), 1e-12, "forward vs reverse");
  return check_report();
}
