// Containers of pairs mixing an integer and a double, reordered by the library: sorting indices
// by value (std::sort of vector<pair<int, double>>), a priority queue of (value, index) pairs and
// std::stable_sort of a struct with an int key. Reverse mode refused them: the pair's int moved
// by the library's inlined assignments was taken for float bits moved at the wrong width.
// Gradients against central differences, forward mode against reverse.
// RUN: %synthase-cxx -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cxx -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
#include "check.h"
#include <algorithm>
#include <queue>
#include <utility>
#include <vector>

// The values sorted by size, each weighted by its original index and its rank.
static double ranked(const double *x, int n) {
  std::vector<std::pair<int, double>> pv;
  for (int i = 0; i < n; i++)
    pv.emplace_back(i, x[i] * x[i] + 0.1 * i);
  std::sort(pv.begin(), pv.end(), [](const auto &a, const auto &b) { return a.second > b.second; });
  double s = 0;
  for (int r = 0; r < n; r++)
    s += pv[r].second * (r + 1) + sin(pv[r].second) * pv[r].first;
  return s;
}

// The k largest values popped from a priority queue of (value, index) pairs.
static double top_k(const double *x, int n) {
  std::priority_queue<std::pair<double, int>> q;
  for (int i = 0; i < n; i++)
    q.push({std::exp(x[i]) + i * 0.01, i});
  double s = 0;
  for (int r = 0; r < 4 && !q.empty(); r++) {
    auto [v, i] = q.top();
    q.pop();
    s += v * (i + 2);
  }
  return s;
}

struct Item {
  int key;
  double w;
  short group;
};

// A stable sort by an integer key computed from the data's order, then a weighted sum.
static double stable(const double *x, int n) {
  std::vector<Item> items;
  for (int i = 0; i < n; i++)
    items.push_back({(7 * i) % 5, x[i], (short)(i % 3)});
  std::stable_sort(items.begin(), items.end(), [](const Item &a, const Item &b) { return a.key < b.key; });
  double s = 0;
  for (int r = 0; r < n; r++)
    s += items[r].w * items[r].w * (r + 1) + items[r].group * std::cos(items[r].w);
  return s;
}

int main() {
  check_seed(11);
  check_gradient_fn<9, ranked>("sort vector<pair<int, double>>");
  check_gradient_fn<9, top_k>("priority_queue<pair<double, int>>");
  check_gradient_fn<9, stable>("stable_sort of {int, double, short}");
  return check_report();
}
