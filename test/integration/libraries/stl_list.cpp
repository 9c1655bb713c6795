// std::list<double> built inside the differentiated function from active inputs (issue 15):
// libstdc++ links its nodes out of line (_List_node_base::_M_hook, _M_unhook, _M_transfer,
// _M_reverse, swap), and the derivative repeats each of those calls on the shadow list.
// push_back, push_front, insert, erase, remove_if, splice, sort (by the active values), reverse,
// merge and swap; the values are combined in list order, nonlinearly. Reverse mode is compared
// with central finite differences, forward mode (each unit direction, and width 2) with reverse.
// RUN: %synthase-cxx -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cxx -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
#include "check.h"
#include <iterator>
#include <list>

enum { N = 20 };

static double ordered_sum(const std::list<double> &l, double decay) {
  double s = 0;
  for (double v : l)
    s = decay * s + v * v * std::sin(v);
  return s;
}

static double list_ops(const double *x, int n) {
  std::list<double> a, b;
  for (int i = 0; i < n; i++) {
    if (i % 2)
      a.push_back(x[i] * x[i]);
    else
      a.push_front(std::cos(x[i]));
  }
  auto it = std::next(a.begin(), 3);
  a.insert(it, x[0] * x[1]);
  a.erase(std::next(a.begin(), 6));
  a.remove_if([](double v) { return v > 0.58; });
  for (int i = 0; i < 5; i++)
    b.push_back(x[i] + 0.25 * x[i + 5]);
  a.splice(std::next(a.begin(), 2), b, std::next(b.begin()), std::prev(b.end())); // a range
  a.splice(a.end(), b);                                                           // the rest
  double s = ordered_sum(a, 0.9);
  a.sort();
  s += ordered_sum(a, 0.8);
  a.reverse();
  s += ordered_sum(a, 0.7) + a.front() * a.back();
  return s;
}

static double list_merge_swap(const double *x, int n) {
  std::list<double> p, q;
  for (int i = 0; i < n; i++)
    (i % 3 ? p : q).push_back(x[i] * std::exp(0.2 * x[i]));
  p.sort();
  q.sort(std::greater<double>());
  q.reverse();
  p.merge(q);
  p.pop_front();
  p.pop_back();
  std::list<double> r;
  r.swap(p);
  return ordered_sum(r, 0.85) + (double)p.size();
}

typedef double (*Fn)(const double *, int);
static Fn current;
static double fd_wrap(const double *x, void *) { return current(x, N); }

typedef struct { double d[2]; } T2;
extern "C" T2 __enzyme_fwddiff_w2(void *, ...);
extern "C" void __enzyme_autodiff_w2(void *, ...);

static void check(Fn f, const char *name, const double *x) {
  double g[N] = {0}, fd[N];
  __enzyme_autodiff((void *)f, enzyme_dup, x, g, enzyme_const, N);
  current = f;
  check_fd_grad(fd_wrap, 0, x, N, fd);
  for (int i = 0; i < N; i++) {
    CHECK_CLOSE(g[i], fd[i], 1e-6, "%s: reverse d/dx[%d] vs FD", name, i);
    double e[N] = {0};
    e[i] = 1;
    double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, e, enzyme_const, N);
    CHECK_CLOSE(t, g[i], 1e-10, "%s: forward vs reverse [%d]", name, i);
  }
  double v0[N], v1[N], g0[N] = {0}, g1[N] = {0};
  for (int i = 0; i < N; i++)
    v0[i] = std::sin(i + 1.0), v1[i] = std::cos(2.0 * i);
  T2 t = __enzyme_fwddiff_w2((void *)f, enzyme_width, 2, enzyme_dup, x, v0, v1, enzyme_const, N);
  CHECK_CLOSE(t.d[0], check_dot(g, v0, N), 1e-10, "%s: width-2 forward lane 0", name);
  CHECK_CLOSE(t.d[1], check_dot(g, v1, N), 1e-10, "%s: width-2 forward lane 1", name);
  __enzyme_autodiff_w2((void *)f, enzyme_width, 2, enzyme_dup, x, g0, g1, enzyme_const, N, 1.0, 2.0);
  for (int i = 0; i < N; i++) {
    CHECK_CLOSE(g0[i], g[i], 1e-10, "%s: width-2 reverse lane 0 [%d]", name, i);
    CHECK_CLOSE(g1[i], 2 * g[i], 1e-10, "%s: width-2 reverse lane 1 [%d]", name, i);
  }
}

int main() {
  double x[N];
  check_seed(15);
  // Distinct values far apart compared with the finite-difference step (sort and remove_if
  // decide the same way under it).
  for (int i = 0; i < N; i++)
    x[i] = 0.1 * ((i * 7) % N) - 0.9 + 0.01 * check_uniform(0, 1);
  check(list_ops, "list ops", x);
  check(list_merge_swap, "list merge/swap", x);
  return check_report();
}
