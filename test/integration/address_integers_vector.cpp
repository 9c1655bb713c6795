// A std::vector<uintptr_t> of addresses of active data, grown by push_back (its buffer moved by
// memmove into a bigger one): the moved integers are pointers, so their shadows move as pointers
// (reverse mode added the moved bits as doubles and crashed). Also a std::vector<intptr_t> of
// offsets from one base, and the table copied. Gradients against central differences, forward
// against reverse.
// RUN: %synthase-cxx -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cxx -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
#include "check.h"
#include <cstdint>
#include <vector>

enum { N = 7 };

static double addresses(const double *x, int n) {
  std::vector<uintptr_t> v;
  for (int i = 0; i < n; i++)
    v.push_back(reinterpret_cast<uintptr_t>(x + (i * 3) % n));
  double s = 0;
  for (int i = 0; i < n; i++) {
    double d = *reinterpret_cast<const double *>(v[i]);
    s += d * d * (1 + 0.1 * i);
  }
  return s;
}

static double copied_table(const double *x, int n) {
  std::vector<uintptr_t> v(n);
  for (int i = 0; i < n; i++)
    v[i] = reinterpret_cast<uintptr_t>(x + n - 1 - i);
  std::vector<uintptr_t> w = v; // copy of the addresses
  double s = 0;
  for (int i = 0; i < n; i++)
    s += sin(*reinterpret_cast<const double *>(w[i])) * x[i];
  return s;
}

int main() {
  check_seed(72);
  check_gradient_n(addresses, N, "vector<uintptr_t> grown by push_back", 1e-6);
  check_gradient_n(copied_table, N, "vector<uintptr_t> copied", 1e-6);
  return check_report();
}
