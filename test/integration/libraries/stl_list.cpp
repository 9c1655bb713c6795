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

static void check(check_fn_ptr f, const char *name, const double *x) { check_all_lanes<N>(f, name, x); }

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
