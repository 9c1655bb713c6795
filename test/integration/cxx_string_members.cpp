// std::string fields next to active values: a struct {double; std::string} lives in memory with a
// shadow, so its shadow holds a string too. libstdc++'s out-of-line string members (_M_replace,
// _M_append, _M_assign, _M_mutate, swap, substr) are repeated on the shadow string in forward
// mode; names longer than the small-string buffer (15 characters) used to make forward mode free
// the shadow's inline buffer (free(): invalid pointer). Reverse and forward vs. central
// differences and each other.
// RUN: %synthase-cxx -O0 -I%inputs %s -o %t0 && %t0
// RUN: %synthase-cxx -O2 -I%inputs %s -o %t2 && %t2
// RUN: %synthase-cxx -O3 -march=native -I%inputs %s -o %t3 && %t3
#include "check.h"
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#define N 4

struct Body {
  double mass;
  std::string name;
};

static double named_bodies(const double *x, int n) {
  std::vector<Body> bodies(n); // sized up front: moving an element's inline name is a run-time-length
                               // copy out of mixed memory that reverse mode refuses
  for (int i = 0; i < n; ++i) {
    Body &b = bodies[i];
    b.mass = x[i] * x[i];
    b.name = "body-with-a-name-longer-than-fifteen-characters-";
    b.name.push_back(char('a' + i));
    if (i % 2)
      b.name.erase(0, 5);
  }
  std::swap(bodies[0].name, bodies[n - 1].name);
  double s = 0;
  for (const Body &b : bodies)
    s += std::sin(b.mass) * (double)b.name.size();
  return s;
}

static double short_and_long(const double *x, int n) {
  Body a{x[0], "short"}, b{x[1], std::string(40, 'x')};
  a.name.append(30, 'y'); // grows past the inline buffer
  b.name.resize(3);
  b.name.shrink_to_fit();
  a.name.swap(b.name);
  double s = a.mass * (double)a.name.size() + b.mass * b.mass * (double)b.name.size();
  for (int i = 2; i < n; ++i)
    s += x[i] * a.mass;
  return s;
}

// The reported case: one long name assigned to a struct that also holds the active mass.
static double long_name(const double *x, int) {
  Body S;
  S.mass = x[0];
  S.name = "chain-of-springs-with-a-long-name";
  return S.mass * S.mass * (double)S.name.size();
}

// Names that stay within the inline buffer (15 characters), changed inline and out of line.
static double short_names(const double *x, int n) {
  Body a{x[0], "ab"}, b{x[1], "hello"};
  a.name.append(3, 'y');
  a.name += "cd";
  b.name.resize(9, 'z');
  b.name.swap(a.name);
  std::string t = b.name.substr(1, 3);
  a.name = t;
  double s = a.mass * a.mass * (double)a.name.size() + std::sin(b.mass) * (double)b.name.size();
  for (int i = 2; i < n; ++i)
    s += x[i] * b.mass * (double)(a.name[0] == 'e');
  return s;
}

int main() {
  check_seed(29);
  for (int t = 0; t < 3; ++t) {
    check_gradient_fn<N, named_bodies>("named bodies");
    check_gradient_fn<N, short_and_long>("short and long names");
    check_gradient_fn<N, long_name>("long name");
    check_gradient_fn<N, short_names>("short names");
  }
  return check_report();
}
