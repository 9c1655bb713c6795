// Function pointers whose calls pass a struct in memory: a 40-byte struct by value (byval) and a
// struct result (sret), each selected at run time from two targets. Reverse-mode gradients and
// forward-mode tangents against analytic derivatives; the two modes agree.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O1 -I%inputs %s -o %t1 -lm && %t1
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -x c++ -O3 -I%inputs %s -o %t3 -lm && %t3
#include "check.h"
#include <math.h>

typedef struct {
  double a[5];
} Vec5;

static double weighted(Vec5 v) {
  double s = 0;
  for (int i = 0; i < 5; ++i)
    s += (i + 1) * v.a[i] * v.a[i];
  return s;
}
static double ends(Vec5 v) { return v.a[0] * exp(v.a[4]); }
static Vec5 waves(double x) {
  Vec5 v;
  for (int i = 0; i < 5; ++i)
    v.a[i] = sin((i + 1) * x);
  return v;
}
static Vec5 powers(double x) {
  Vec5 v;
  double p = 1;
  for (int i = 0; i < 5; ++i, p *= x)
    v.a[i] = p;
  return v;
}

typedef double (*reduce_fn)(Vec5);
typedef Vec5 (*make_fn)(double);

static void reduce(const Vec5 *v, double *out, reduce_fn f) { *out = f(*v); }
static void make(const double *x, Vec5 *out, make_fn f) { *out = f(*x); }

int main(int argc, char **argv) {
  (void)argv;
  reduce_fn reducers[2] = {weighted, ends};
  make_fn makers[2] = {waves, powers};
  const Vec5 v = {{0.3, -1.1, 0.8, 1.7, -0.4}};
  for (int k = 0; k < 2; ++k) {
    // argc keeps the target unknown at compile time.
    reduce_fn f = reducers[(k + argc - 1) % 2];
    Vec5 dv = {{0}};
    double out = 0, dout = 1;
    __enzyme_autodiff((void *)reduce, enzyme_dup, &v, &dv, enzyme_dup, &out, &dout, enzyme_const, f);
    for (int i = 0; i < 5; ++i) {
      double want = k == 0 ? 2 * (i + 1) * v.a[i]
                           : (i == 0 ? exp(v.a[4]) : i == 4 ? v.a[0] * exp(v.a[4]) : 0.0);
      CHECK_CLOSE(dv.a[i], want, 1e-14, "byval target %d: gradient [%d]", k, i);
      Vec5 t = {{0}};
      t.a[i] = 1;
      double r = 0, dr = 0;
      __enzyme_fwddiff((void *)reduce, enzyme_dup, &v, &t, enzyme_dup, &r, &dr, enzyme_const, f);
      CHECK_CLOSE(dr, dv.a[i], 1e-14, "byval target %d: tangent [%d] vs gradient", k, i);
    }

    make_fn g = makers[(k + argc - 1) % 2];
    double x = 0.7, dx = 0;
    Vec5 o, w = {{1.0, -0.5, 0.25, 2.0, -1.0}};
    Vec5 dout5 = w;
    __enzyme_autodiff((void *)make, enzyme_dup, &x, &dx, enzyme_dup, &o, &dout5, enzyme_const, g);
    double want = 0;
    for (int i = 0; i < 5; ++i)
      want += w.a[i] * (k == 0 ? (i + 1) * cos((i + 1) * x) : (i ? i * pow(x, i - 1) : 0.0));
    CHECK_CLOSE(dx, want, 1e-14, "sret target %d: <w, dv/dx>", k);
    double tx = 1;
    Vec5 to = {{0}};
    __enzyme_fwddiff((void *)make, enzyme_dup, &x, &tx, enzyme_dup, &o, &to, enzyme_const, g);
    double dot = 0;
    for (int i = 0; i < 5; ++i)
      dot += w.a[i] * to.a[i];
    CHECK_CLOSE(dot, dx, 1e-14, "sret target %d: forward agrees with reverse", k);
  }
  return check_report();
}
