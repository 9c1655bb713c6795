// Virtual calls on active data: energy() called through base pointers, on objects made outside
// the differentiated function (shadow objects passed with enzyme_dup) and inside it (dynamic
// type chosen by a run-time array, deleted through the virtual destructor). The vtable pointer
// needs no shadow: the primal function pointer selects the derivative. Both modes, against
// analytic values and central differences; forward and reverse agree (dot-product test).
// RUN: %synthase-cxx -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cxx -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
#include "check.h"
extern "C" void *__enzyme_virtualreverse(void *);

struct Shape {
  virtual double energy() const = 0;
  virtual ~Shape() {}
};
struct Spring : Shape {
  double k, x;
  Spring(double k, double x) : k(k), x(x) {}
  double energy() const override { return 0.5 * k * x * x; }
};
struct Pendulum : Shape {
  double m, th;
  Pendulum(double m, double th) : m(m), th(th) {}
  double energy() const override { return m * (1 - cos(th)); }
};
struct Quartic : Spring { // a derived class of a derived class, overriding again
  Quartic(double k, double x) : Spring(k, x) {}
  double energy() const override { return k * x * x * x * x + sin(x); }
};

// Objects made by the caller: which override runs is known only at run time.
__attribute__((noinline)) double total(Shape *const *objs, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += (i + 1) * objs[i]->energy();
  return s;
}

// Objects made inside: p holds two parameters per object, kinds says which class.
static double build(const double *p, const int *kinds, int n) {
  Shape **objs = new Shape *[n];
  for (int i = 0; i < n; i++) {
    if (kinds[i] == 0) objs[i] = new Spring(p[2 * i], p[2 * i + 1]);
    else if (kinds[i] == 1) objs[i] = new Pendulum(p[2 * i], p[2 * i + 1]);
    else objs[i] = new Quartic(p[2 * i], p[2 * i + 1]);
  }
  double s = 0;
  for (int i = 0; i < n; i++) s += objs[i]->energy() * objs[(i + 1) % n]->energy();
  for (int i = 0; i < n; i++) delete objs[i];
  delete[] objs;
  return s;
}

#define N 5
static int kinds_g[N] = {0, 1, 2, 1, 0};
static double build_fd(const double *p, void *) { return build(p, kinds_g, N); }

int main() {
  // ---- objects made outside ----
  Spring s1(2.0, 0.7);
  Pendulum p1(1.5, 0.4);
  Quartic q1(0.8, 1.1);
  Shape *objs[3] = {&s1, &p1, &q1};
  Spring ds1(0, 0);
  Pendulum dp1(0, 0);
  Quartic dq1(0, 0);
  Shape *dobjs[3] = {&ds1, &dp1, &dq1};
  double e = __enzyme_autodiff((void *)total, enzyme_dup, objs, dobjs, enzyme_const, 3);
  (void)e;
  CHECK_CLOSE(ds1.k, 1 * 0.5 * 0.7 * 0.7, 1e-12, "dk spring");
  CHECK_CLOSE(ds1.x, 1 * 2.0 * 0.7, 1e-12, "dx spring");
  CHECK_CLOSE(dp1.m, 2 * (1 - cos(0.4)), 1e-12, "dm pendulum");
  CHECK_CLOSE(dp1.th, 2 * 1.5 * sin(0.4), 1e-12, "dth pendulum");
  CHECK_CLOSE(dq1.k, 3 * pow(1.1, 4), 1e-12, "dk quartic");
  CHECK_CLOSE(dq1.x, 3 * (4 * 0.8 * pow(1.1, 3) + cos(1.1)), 1e-12, "dx quartic");
  // forward along v = (1, 2, 3, 4, 5, 6) over (k, x, m, th, k, x)
  Spring ts1(1, 2);
  Pendulum tp1(3, 4);
  Quartic tq1(5, 6);
  Shape *tobjs[3] = {&ts1, &tp1, &tq1};
  double t = __enzyme_fwddiff((void *)total, enzyme_dup, objs, tobjs, enzyme_const, 3);
  double dot = 1 * ds1.k + 2 * ds1.x + 3 * dp1.m + 4 * dp1.th + 5 * dq1.k + 6 * dq1.x;
  CHECK_CLOSE(t, dot, 1e-12, "forward = <grad, v>");

  // Code written for Enzyme gives shadow objects a vtable from __enzyme_virtualreverse.
  Pendulum dp2(0, 0);
  *(void **)&dp2 = __enzyme_virtualreverse(*(void **)&p1);
  Shape *one[1] = {&p1}, *done[1] = {&dp2};
  __enzyme_autodiff((void *)total, enzyme_dup, one, done, enzyme_const, 1);
  CHECK_CLOSE(dp2.th, 1.5 * sin(0.4), 1e-12, "__enzyme_virtualreverse shadow: dth");

  // ---- objects made inside ----
  double p[2 * N], dp[2 * N] = {0}, g[2 * N];
  check_seed(11);
  for (int i = 0; i < 2 * N; i++) p[i] = check_uniform(0.3, 1.2);
  __enzyme_autodiff((void *)build, enzyme_dup, p, dp, enzyme_const, kinds_g, enzyme_const, N);
  check_fd_grad(build_fd, nullptr, p, 2 * N, g);
  for (int i = 0; i < 2 * N; i++) CHECK_CLOSE(dp[i], g[i], 1e-6, "build: d/dp[%d]", i);
  double v[2 * N], dirsum = 0;
  for (int i = 0; i < 2 * N; i++) v[i] = check_uniform(-1, 1), dirsum += v[i] * dp[i];
  double tb = __enzyme_fwddiff((void *)build, enzyme_dup, p, v, enzyme_const, kinds_g, enzyme_const, N);
  CHECK_CLOSE(tb, dirsum, 1e-10, "build: forward = <grad, v>");
  return check_report();
}
