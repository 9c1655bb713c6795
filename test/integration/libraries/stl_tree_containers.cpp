// std::map, std::set and std::multimap built inside the differentiated function from active
// inputs (issue 15): libstdc++ links their nodes out of line (_Rb_tree_insert_and_rebalance,
// _Rb_tree_rebalance_for_erase, _Rb_tree_increment/_decrement), and the derivative repeats each
// of those calls on the shadow tree. Each function iterates in key order (which depends on the
// active keys for map<double,...> and set<double>), erases elements, looks keys up, and combines
// the values nonlinearly in that order; reverse mode is compared with central finite
// differences, forward mode (each unit direction, and width 2) with reverse mode. Copies of a
// whole tree are in stl_map_copy.cpp (forward mode only).
// RUN: %synthase-cxx -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cxx -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
#include "check.h"
#include <map>
#include <set>
#include <vector>

enum { N = 24 };

// Integer keys: accumulation by key, erase by key and by iterator, lookups, in-order sum.
static double map_int(const double *x, int n) {
  std::map<int, double> m;
  for (int i = 0; i < n; i++)
    m[(i * 7) % 11] += x[i] * x[i] + 0.5 * x[i];
  m.erase(3);
  m.erase(m.find(8));
  double s = 0;
  int pos = 0;
  for (auto &kv : m)
    s = 0.9 * s + kv.second * kv.second * std::sin(kv.second) * (kv.first + 1) + pos++;
  return s + m.at(5) * m[1] + (m.count(3) ? 100.0 : 0.0);
}

// Active keys: the order is the order of the values. Horner-like combination (order matters),
// reverse iteration (decrement), lower_bound, erase of the smallest and of a looked-up key.
static double map_double(const double *x, int n) {
  std::map<double, double> m;
  for (int i = 0; i < n; i++)
    m[x[i]] = x[i] * x[(i + 1) % n];
  m.erase(m.begin());
  m.erase(x[4]);
  double s = 0;
  for (auto &kv : m)
    s = 0.8 * s + kv.second * std::sin(kv.first);
  double r = 0;
  for (auto it = m.rbegin(); it != m.rend(); ++it)
    r = 0.7 * r + it->first * it->second;
  auto lb = m.lower_bound(x[2]);
  return s + r + lb->second * lb->first + std::prev(m.end())->second;
}

static double set_double(const double *x, int n) {
  std::set<double> s;
  for (int i = 0; i < n; i++)
    s.insert(0.3 * x[i] * x[i] + x[i]); // increasing in x here: distinct keys
  s.erase(s.begin());
  s.erase(std::next(s.begin(), 3));
  s.erase(0.3 * x[5] * x[5] + x[5]);
  double acc = 0;
  for (double v : s)
    acc = 0.85 * acc + v * v * std::sin(v);
  auto it = s.find(0.3 * x[7] * x[7] + x[7]);
  return acc + (it != s.end() ? *it * 3.0 : 0.0) + *std::prev(s.end(), 2);
}

static double multimap_int(const double *x, int n) {
  std::multimap<int, double> mm;
  for (int i = 0; i < n; i++)
    mm.insert({i % 4, x[i] * std::cos(x[i])});
  mm.erase(mm.find(2)); // one element of key 2
  mm.erase(3);          // every element of key 3
  double s = 0;
  for (auto &kv : mm)
    s = 0.9 * s + kv.second * kv.second * (kv.first + 1);
  auto range = mm.equal_range(1);
  for (auto it = range.first; it != range.second; ++it)
    s += it->second * it->second * it->second;
  return s;
}

// Vectors as values: nodes that own heap blocks, freed with the map.
static double map_vector(const double *x, int n) {
  std::map<int, std::vector<double>> mv;
  for (int i = 0; i < n; i++)
    mv[i % 5].push_back(x[i] * x[i]);
  mv.erase(2);
  double s = 0;
  for (auto &kv : mv) {
    double t = 0;
    for (double v : kv.second)
      t = 0.5 * t + v * std::sin(v);
    s += t * (kv.first + 1);
  }
  return s + mv.at(4).back() * mv[0][1];
}

static void check(check_fn_ptr f, const char *name, const double *x) { check_all_lanes<N>(f, name, x); }

int main() {
  double x[N];
  check_seed(15);
  // Distinct keys, far apart compared with the finite-difference step, so that the order of
  // the map does not change under it.
  for (int i = 0; i < N; i++)
    x[i] = 0.1 * ((i * 17) % N) - 1.2 + 0.01 * check_uniform(0, 1);
  check(map_int, "map<int,double>", x);
  check(map_double, "map<double,double>", x);
  check(set_double, "set<double>", x);
  check(multimap_int, "multimap<int,double>", x);
  check(map_vector, "map<int,vector<double>>", x);
  return check_report();
}
