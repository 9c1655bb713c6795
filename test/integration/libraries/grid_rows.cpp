// The rows of a caller's grid (std::vector<std::vector<double>>) given new blocks one by one
// while the outer vector stays where it is: `r = std::move(nr)`, `r.swap(nr)`, std::swap with a
// local, rows of another length, only some rows replaced, a grid that is a struct member, a grid
// whose rows are replaced and which then loses its last row. Before, the reverse sweep left the
// adjoints of the values passed in the old rows' shadows (the outer shadow block points at the
// new rows by the end of the call): silent zeros. The lowering now counts the outer vector's
// elements before the call and pairs each old row with the row at its index afterwards
// (docs/design.md, *The relocation log*).
// Reverse mode against central finite differences, forward mode against reverse.
// RUN: %synthase-cxx -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cxx -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -O2 -flto -I%inputs %s -o %tl -lm && %tl
#include "check.h"
#include <cmath>
#include <utility>
#include <vector>

typedef std::vector<std::vector<double>> Grid;

static double sumsq(const Grid &g) {
  double t = 0;
  for (size_t i = 0; i < g.size(); i++)
    for (size_t j = 0; j < g[i].size(); j++) t += g[i][j] * g[i][j] * (i + j + 1);
  return t;
}

// Kind 0: move-assign, 1: r.swap(nr), 2: std::swap(r, nr), 3: rows one longer, 4: every other
// row, 5: then a row appended past the outer vector's capacity (the outer block moves too).
static double rows(Grid &g, int kind) {
  for (int step = 0; step < 2; step++) {
    int k = 0;
    for (auto &r : g) {
      if (kind == 4 && k++ % 2)
        continue;
      std::vector<double> nr(r.size() + (kind == 3));
      for (size_t i = 0; i < r.size(); i++) nr[i] = std::sin(r[i]) + 0.5 * r[i] * r[(i + 1) % r.size()];
      if (kind == 3)
        nr.back() = r[0];
      if (kind == 1)
        r.swap(nr);
      else if (kind == 2)
        std::swap(r, nr);
      else
        r = std::move(nr);
    }
    if (kind == 5) {
      g.shrink_to_fit();
      g.push_back(std::vector<double>(2, g[0][0]));
    }
  }
  return sumsq(g);
}

struct Field { double scale; Grid g; };
static double member(Field &f) {
  for (auto &r : f.g) {
    std::vector<double> nr(r.size());
    for (size_t i = 0; i < r.size(); i++) nr[i] = f.scale * r[i] * r[i];
    r = std::move(nr);
  }
  return sumsq(f.g);
}

// Rows replaced, then the last row dropped: only the rows still there are paired (and can be
// read by the caller).
static double shrink(Grid &g) {
  for (auto &r : g) {
    std::vector<double> nr(r.size());
    for (size_t i = 0; i < r.size(); i++) nr[i] = std::exp(0.3 * r[i]);
    r = std::move(nr);
  }
  double last = 0;
  for (double v : g.back()) last += v;
  g.pop_back();
  return sumsq(g) + last;
}

static double call(Grid g, int kind) { return kind < 0 ? shrink(g) : rows(g, kind); }

static const Grid G0 = {{0.5, -0.25, 1.0}, {0.75, 0.3, -0.6, 0.2}, {0.1, 0.9}};

static Grid zeros(const Grid &g) {
  Grid z = g;
  for (auto &r : z)
    for (double &v : r) v = 0;
  return z;
}

static void check(int kind, const char *name) {
  Grid g = G0, dg = zeros(G0);
  if (kind < 0)
    __enzyme_autodiff((void *)shrink, enzyme_dup, &g, &dg);
  else
    __enzyme_autodiff((void *)rows, enzyme_dup, &g, &dg, enzyme_const, kind);
  // After pop_back the caller's shadow grid has lost its last row too.
  for (size_t i = 0; i < G0.size() - (kind < 0); i++)
    for (size_t j = 0; j < G0[i].size(); j++) {
      Grid p = G0, m = G0;
      p[i][j] += 1e-6;
      m[i][j] -= 1e-6;
      double fd = (call(p, kind) - call(m, kind)) / 2e-6;
      CHECK_CLOSE(dg[i][j], fd, 1e-6, "%s d[%zu][%zu]", name, i, j);
      Grid x = G0, dx = zeros(G0);
      dx[i][j] = 1;
      double t = kind < 0 ? __enzyme_fwddiff((void *)shrink, enzyme_dup, &x, &dx)
                          : __enzyme_fwddiff((void *)rows, enzyme_dup, &x, &dx, enzyme_const, kind);
      CHECK_CLOSE(t, dg[i][j], 1e-10, "%s forward vs reverse [%zu][%zu]", name, i, j);
    }
}

int main() {
  check(0, "move-assign");
  check(1, "member swap");
  check(2, "std::swap");
  check(3, "longer rows");
  check(4, "every other row");
  check(5, "rows, then the outer vector grown");
  check(-1, "rows then pop_back");
  {
    Field f = {0.7, G0}, df = {0, zeros(G0)};
    __enzyme_autodiff((void *)member, enzyme_dup, &f, &df);
    for (size_t i = 0; i < G0.size(); i++)
      for (size_t j = 0; j < G0[i].size(); j++) {
        double v = G0[i][j], c = i + j + 1;
        // t = sum c (s v^2)^2: dt/dv = 4 c s^2 v^3, dt/ds = sum 2 c s v^4
        CHECK_CLOSE(df.g[i][j], 4 * c * 0.49 * v * v * v, 1e-12, "member d[%zu][%zu]", i, j);
      }
    double ds = 0;
    for (size_t i = 0; i < G0.size(); i++)
      for (size_t j = 0; j < G0[i].size(); j++) ds += 2 * (i + j + 1) * 0.7 * std::pow(G0[i][j], 4);
    CHECK_CLOSE(df.scale, ds, 1e-12, "member d/dscale");
  }
  // Called again and again: nothing accumulates from one call to the next.
  for (int call = 0; call < 20; call++) {
    Grid g = G0, dg = zeros(G0);
    __enzyme_autodiff((void *)rows, enzyme_dup, &g, &dg, enzyme_const, 0);
    if (call == 19) {
      Grid p = G0, m = G0;
      p[1][2] += 1e-6;
      m[1][2] -= 1e-6;
      CHECK_CLOSE(dg[1][2], (rows(p, 0) - rows(m, 0)) / 2e-6, 1e-6, "repeated calls d[1][2]");
    }
  }
  return check_report();
}
