// A caller's std::vector grown inside the differentiated function (push_back past the
// capacity, reserve, resize, insert; vectors of floats, of trivially copyable structs, of
// std::pair, std::complex, a struct with a copy constructor, vectors of vectors growing inside
// and outside) or given a block made in the call (`u = std::move(next)`, std::swap with a local,
// a struct member, a shorter vector, a vector reached through a pointer in a context struct, a
// vector of vectors replaced each time step):
// the adjoints of the values the caller passed end up in the caller's shadow vector, by index,
// as when the capacity sufficed (docs/design.md, *The relocation log*). Before, the reverse sweep
// left them in the old shadow block, which the grown shadow vector no longer points to: silent
// zeros.
// Reverse mode against central finite differences or analytic values, forward against reverse;
// also a gradient called 50 times on vectors that grow each time.
// RUN: %synthase-cxx -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cxx -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -O2 -flto -I%inputs %s -o %tl -lm && %tl
#include "check.h"
#include <vector>
#include <utility>
#include <cmath>
#include <complex>

enum { N = 5 };
struct Pt { double x, y; };

static double pushes(std::vector<double> &v, double a) {
  double s = 0;
  for (double e : v) s += e * e;
  for (int k = 0; k < 20; k++) v.push_back(std::sin(v[k % 3] * a) + k); // grows several times
  double t = 0;
  for (size_t i = 0; i < v.size(); i++) t += v[i] * v[i] * (1 + 0.1 * i);
  return t + s * a;
}
static double reserves(std::vector<double> &v, double a) {
  v.reserve(4 * v.size() + 3);
  v.push_back(a * v[0]);
  double t = 0;
  for (size_t i = 0; i < v.size(); i++) t += std::cos(v[i]) * (i + 1);
  return t;
}
static double resizes(std::vector<double> &v, double a) {
  size_t n = v.size();
  v.resize(n + 7);
  for (size_t i = n; i < v.size(); i++) v[i] = v[i - n] * a + v[(i * 3) % n];
  double t = 0;
  for (size_t i = 0; i < v.size(); i++) t += v[i] * v[(i + 1) % v.size()];
  return t;
}
static double inserts(std::vector<double> &v, double a) {
  v.insert(v.begin() + 2, a * v[3]);
  v.insert(v.begin() + 1, v.back() * v[0]);
  double t = 0;
  for (size_t i = 0; i < v.size(); i++) t += v[i] * v[i] * v[i] * (i % 3 + 1);
  return t;
}
static double floats(std::vector<float> &v, double a) {
  for (int k = 0; k < 6; k++) v.push_back(v[k] * (float)a);
  double t = 0;
  for (size_t i = 0; i < v.size(); i++) t += (double)v[i] * v[i] * (i + 1);
  return t;
}
static double points(std::vector<Pt> &v, double a) {
  for (int k = 0; k < 6; k++) v.push_back({v[k].y * a, v[k].x + a});
  double t = 0;
  for (size_t i = 0; i < v.size(); i++) t += v[i].x * v[i].y * (i + 1);
  return t;
}
static double pairs(std::vector<std::pair<double, double>> &v, double a) {
  for (int k = 0; k < 6; k++) v.emplace_back(v[k].second * a, v[k].first + a);
  double t = 0;
  for (size_t i = 0; i < v.size(); i++) t += v[i].first * v[i].second * (i + 1);
  return t;
}
static double nested(std::vector<std::vector<double>> &m, double a) {
  for (auto &row : m)
    for (int k = 0; k < 4; k++) row.push_back(row[k] * a);
  double t = 0;
  for (size_t r = 0; r < m.size(); r++)
    for (size_t i = 0; i < m[r].size(); i++) t += m[r][i] * m[r][i] * (r + i + 1);
  return t;
}

static double rows(std::vector<std::vector<double>> &m, double a) {
  size_t r0 = m.size();
  for (size_t r = 0; r < r0; r++) { // the outer vector grows: its rows move, their shadows with them
    std::vector<double> row(m[r].size());
    for (size_t i = 0; i < row.size(); i++) row[i] = m[r][i] * a + r;
    m.push_back(row);
  }
  double t = 0;
  for (size_t r = 0; r < m.size(); r++)
    for (size_t i = 0; i < m[r].size(); i++) t += m[r][i] * m[r][i] * (r + 2 * i + 1);
  return t;
}

// The caller's vector takes a block made in the call: `u = std::move(next)`, std::swap with a
// local, a member of a caller's struct, a shorter vector.
static double move_assigned(std::vector<double> &u, double a) {
  size_t n = u.size();
  for (int s = 0; s < 3; s++) {
    std::vector<double> un(n);
    for (size_t i = 0; i < n; i++) un[i] = u[i] * a + u[(i + 1) % n] * 0.3 + 0.1 * u[i] * u[i];
    u = std::move(un);
  }
  double t = 0;
  for (size_t i = 0; i < n; i++) t += u[i] * u[i] * (i + 1);
  return t;
}
static double swapped(std::vector<double> &u, double a) {
  size_t n = u.size();
  std::vector<double> un(n);
  for (int s = 0; s < 4; s++) {
    for (size_t i = 0; i < n; i++) un[i] = std::sin(u[i]) * a + u[(i + n - 1) % n];
    std::swap(u, un);
  }
  double t = 0;
  for (size_t i = 0; i < n; i++) t += u[i] * (i + 1);
  return t;
}
static double shrunk(std::vector<double> &u, double a) {
  std::vector<double> un(u.size() - 2);
  for (size_t i = 0; i < un.size(); i++) un[i] = u[i] * u[i + 2] * a;
  double s = u.back() * a;
  u = std::move(un);
  double t = s;
  for (size_t i = 0; i < u.size(); i++) t += u[i] * (i + 2);
  return t;
}
struct Model {
  int id;
  std::vector<double> w;
};
static double member(Model &m, double a) {
  std::vector<double> nw(m.w.size());
  for (size_t i = 0; i < nw.size(); i++) nw[i] = m.w[i] * m.w[i] * a;
  m.w = std::move(nw);
  double t = 0;
  for (size_t i = 0; i < m.w.size(); i++) t += m.w[i] * (i + 1);
  return t;
}

// The caller's vector reached through a pointer in a context struct: grown, and replaced.
struct Ctx {
  int id;
  std::vector<double> *v;
};
static double ctx_grown(Ctx *c, double s) {
  std::vector<double> &v = *c->v;
  size_t n = v.size();
  double t0 = 0;
  for (size_t i = 0; i < n; i++) t0 += v[i] * v[i];
  for (size_t k = 0; k < 5; k++) v.push_back(v[k % n] * s + t0);
  double t = 0;
  for (size_t i = 0; i < v.size(); i++) t += v[i] * (i + 1);
  return t;
}
static double ctx_replaced(Ctx *c, double s) {
  std::vector<double> &v = *c->v;
  std::vector<double> nv(v.size());
  for (size_t i = 0; i < v.size(); i++) nv[i] = v[i] * v[i] * s;
  v = std::move(nv);
  double t = 0;
  for (size_t i = 0; i < v.size(); i++) t += v[i] * (i + 1);
  return t;
}

// Element types relocated member by member at -O0: std::complex, and a struct with a user
// copy constructor.
struct Part { double x, v; Part(double a, double b) : x(a), v(b) {} Part(const Part &o) : x(o.x), v(o.v) {} Part &operator=(const Part &o) { x = o.x; v = o.v; return *this; } };
static double cgrow(std::vector<std::complex<double>> &z, double s) {
  size_t n = z.size();
  for (size_t k = 0; k < n; k++) z.push_back(z[k] * s);
  double t = 0;
  for (size_t i = 0; i < z.size(); i++) t += std::norm(z[i]) * (i + 1);
  return t;
}
static double pgrow(std::vector<Part> &p, double s) {
  size_t n = p.size();
  for (size_t k = 0; k < n; k++) p.push_back(Part(p[k].v * s, p[k].x));
  double t = 0;
  for (size_t i = 0; i < p.size(); i++) t += p[i].x * p[i].v * (i + 1);
  return t;
}
// A grid (vector of vectors) replaced each time step: `g = std::move(next)`.
typedef std::vector<std::vector<double>> Grid;
static double evolve(Grid &g, double s) {
  size_t r = g.size(), c = g[0].size();
  for (int step = 0; step < 2; step++) {
    Grid next(r, std::vector<double>(c));
    for (size_t i = 0; i < r; i++)
      for (size_t j = 0; j < c; j++) next[i][j] = g[i][j] * s + g[(i + 1) % r][j] * g[i][(j + 1) % c];
    g = std::move(next);
  }
  double t = 0;
  for (size_t i = 0; i < r; i++)
    for (size_t j = 0; j < c; j++) t += g[i][j] * g[i][j] * (i + j + 1);
  return t;
}
template <class T> static std::vector<T> exact(std::vector<T> v) { v.shrink_to_fit(); return v; }

static double x0(int i) { return 0.3 + 0.21 * i * (i % 2 ? -1 : 1); }

template <class F> static void check_double_case(const char *name, F *f, int n, int checked = -1) {
  // checked: how many of the values passed the grown or replaced shadow still holds
  if (checked < 0)
    checked = n;
  std::vector<double> init(n);
  for (int i = 0; i < n; i++) init[i] = x0(i);
  double a = 0.7;
  std::vector<double> v = exact(init), dv = exact(std::vector<double>(n, 0.0));
  double da = __enzyme_autodiff((void *)f, enzyme_dup, &v, &dv, enzyme_out, a);
  CHECK_TRUE(dv.size() == v.size(), "%s: shadow length %zu vs %zu", name, dv.size(), v.size());
  for (int i = 0; i < checked; i++) {
    double h = 1e-6;
    std::vector<double> p = exact(init), m = exact(init);
    p[i] += h; m[i] -= h;
    double fd = (f(p, a) - f(m, a)) / (2 * h);
    CHECK_CLOSE(dv[i], fd, 1e-7, "%s: reverse d/dv[%d]", name, i);
    std::vector<double> w = exact(init), dw = exact(std::vector<double>(n, 0.0));
    dw[i] = 1;
    double t = __enzyme_fwddiff((void *)f, enzyme_dup, &w, &dw, enzyme_const, a);
    CHECK_CLOSE(t, dv[i], 1e-10, "%s: forward vs reverse [%d]", name, i);
  }
  std::vector<double> p = exact(init), m = exact(init);
  double fda = (f(p, a + 1e-6) - f(m, a - 1e-6)) / 2e-6;
  CHECK_CLOSE(da, fda, 1e-7, "%s: d/da", name);
}

int main() {
  check_double_case("push_back", pushes, N);
  check_double_case("reserve", reserves, N);
  check_double_case("resize", resizes, N);
  check_double_case("insert", inserts, N);
  check_double_case("move-assigned", move_assigned, N);
  check_double_case("swapped", swapped, N);
  check_double_case("shrunk", shrunk, N, N - 2); // u[N-2], u[N-1] have no place in the shorter shadow
  {
    double x[3] = {0.5, -1, 2};
    for (int replaced = 0; replaced < 2; replaced++) {
      auto *f = replaced ? ctx_replaced : ctx_grown;
      std::vector<double> v = exact(std::vector<double>(x, x + 3)), dv = exact(std::vector<double>(3, 0.0));
      Ctx c{1, &v}, dc{1, &dv};
      if (replaced)
        __enzyme_autodiff((void *)ctx_replaced, enzyme_dup, &c, &dc, enzyme_const, 0.7);
      else
        __enzyme_autodiff((void *)ctx_grown, enzyme_dup, &c, &dc, enzyme_const, 0.7);
      for (int i = 0; i < 3; i++) {
        std::vector<double> p = exact(std::vector<double>(x, x + 3)), m = p;
        p[i] += 1e-6;
        m[i] -= 1e-6;
        Ctx cp{1, &p}, cm{1, &m};
        CHECK_CLOSE(dv[i], (f(&cp, 0.7) - f(&cm, 0.7)) / 2e-6, 1e-7, "through a context pointer (%s) d/dv[%d]",
                    replaced ? "replaced" : "grown", i);
      }
    }
  }
  {
    Model m{3, {0.5, -1.5, 2.0}}, dm{3, {0, 0, 0}};
    __enzyme_autodiff((void *)member, enzyme_dup, &m, &dm, enzyme_const, 0.7);
    double w0[3] = {0.5, -1.5, 2.0};
    for (int i = 0; i < 3; i++)
      CHECK_CLOSE(dm.w[i], 2 * w0[i] * 0.7 * (i + 1), 1e-12, "member vector d/dw[%d]", i);
  }
  {
    std::vector<float> init(7);
    for (int i = 0; i < 7; i++) init[i] = (float)x0(i);
    std::vector<float> v = exact(init), dv = exact(std::vector<float>(7, 0.f));
    __enzyme_autodiff((void *)floats, enzyme_dup, &v, &dv, enzyme_const, 0.7);
    for (int i = 0; i < 7; i++) {
      // t = sum (i+1) v_i^2 + sum_k (7+k+1) (a v_k)^2
      double want = 2 * (i + 1) * init[i] + (i < 6 ? 2 * (7 + i + 1) * 0.7 * 0.7 * init[i] : 0);
      CHECK_CLOSE(dv[i], want, 1e-5, "float vector d/dv[%d]", i);
    }
  }
  {
    std::vector<Pt> init(6);
    for (int i = 0; i < 6; i++) init[i] = {x0(i), x0(i + 6)};
    std::vector<Pt> v = exact(init), dv = exact(std::vector<Pt>(6, Pt{0, 0}));
    __enzyme_autodiff((void *)points, enzyme_dup, &v, &dv, enzyme_const, 0.7);
    for (int i = 0; i < 6; i++) {
      // t_i = (i+1) x y ; pushed k: (6+k+1) (y_k a)(x_k + a)
      double a = 0.7, x = init[i].x, y = init[i].y, c = 6 + i + 1;
      CHECK_CLOSE(dv[i].x, (i + 1) * y + c * y * a, 1e-10, "points d/dx[%d]", i);
      CHECK_CLOSE(dv[i].y, (i + 1) * x + c * a * (x + a), 1e-10, "points d/dy[%d]", i);
    }
  }
  {
    std::vector<std::pair<double, double>> init(6);
    for (int i = 0; i < 6; i++) init[i] = {x0(i), x0(i + 6)};
    auto v = exact(init);
    auto dv = exact(std::vector<std::pair<double, double>>(6, {0.0, 0.0}));
    __enzyme_autodiff((void *)pairs, enzyme_dup, &v, &dv, enzyme_const, 0.7);
    for (int i = 0; i < 6; i++) {
      double a = 0.7, x = init[i].first, y = init[i].second, c = 6 + i + 1;
      CHECK_CLOSE(dv[i].first, (i + 1) * y + c * y * a, 1e-10, "pairs d/dfirst[%d]", i);
      CHECK_CLOSE(dv[i].second, (i + 1) * x + c * a * (x + a), 1e-10, "pairs d/dsecond[%d]", i);
    }
  }
  {
    std::vector<std::vector<double>> m, dm;
    for (int r = 0; r < 3; r++) {
      m.push_back(exact(std::vector<double>{x0(r), x0(r + 1), x0(r + 2), x0(r + 3)}));
      dm.push_back(exact(std::vector<double>(4, 0.0)));
    }
    auto m0 = m;
    __enzyme_autodiff((void *)nested, enzyme_dup, &m, &dm, enzyme_const, 0.7);
    for (int r = 0; r < 3; r++)
      for (int i = 0; i < 4; i++) {
        double a = 0.7, x = m0[r][i];
        double want = 2 * x * (r + i + 1) + 2 * a * a * x * (r + 4 + i + 1);
        CHECK_CLOSE(dm[r][i], want, 1e-10, "nested d/dm[%d][%d]", r, i);
      }
  }
#ifndef SANITIZED // the outer vector's old shadow block (shadow pointers only) is not freed
  {
    std::vector<std::vector<double>> m, dm;
    for (int r = 0; r < 3; r++) {
      m.push_back(exact(std::vector<double>{x0(r), x0(r + 1), x0(r + 2)}));
      dm.push_back(exact(std::vector<double>(3, 0.0)));
    }
    m.shrink_to_fit(); dm.shrink_to_fit();
    auto m0 = m;
    __enzyme_autodiff((void *)rows, enzyme_dup, &m, &dm, enzyme_const, 0.7);
    CHECK_TRUE(dm.size() == 6, "rows: shadow rows %zu", dm.size());
    for (int r = 0; r < 3; r++)
      for (int i = 0; i < 3; i++) {
        double a = 0.7, x = m0[r][i];
        double want = 2 * x * (r + 2 * i + 1) + 2 * (x * a + r) * a * (r + 3 + 2 * i + 1);
        CHECK_CLOSE(dm[r][i], want, 1e-10, "rows d/dm[%d][%d]", r, i);
      }
  }
#endif
  {
    std::vector<std::complex<double>> z = {{0.5, 1}, {-1, 2}}, dz = {{0, 0}, {0, 0}};
    z.shrink_to_fit(); dz.shrink_to_fit();
    auto z0 = z;
    __enzyme_autodiff((void *)cgrow, enzyme_dup, &z, &dz, enzyme_const, 0.7);
    for (int i = 0; i < 2; i++) {
      double c = (i + 1) + 0.49 * (2 + i + 1);
      CHECK_CLOSE(dz[i].real(), 2 * z0[i].real() * c, 1e-12, "complex re[%d]", i);
      CHECK_CLOSE(dz[i].imag(), 2 * z0[i].imag() * c, 1e-12, "complex im[%d]", i);
    }
  }
  {
    std::vector<Part> p = {Part(0.5, 1), Part(-1, 2)}, dp = {Part(0, 0), Part(0, 0)};
    p.shrink_to_fit(); dp.shrink_to_fit();
    auto p0 = p;
    __enzyme_autodiff((void *)pgrow, enzyme_dup, &p, &dp, enzyme_const, 0.7);
    for (int i = 0; i < 2; i++) {
      double c = 2 + i + 1;
      CHECK_CLOSE(dp[i].x, p0[i].v * (i + 1) + 0.7 * p0[i].v * c, 1e-12, "Part x[%d]", i);
      CHECK_CLOSE(dp[i].v, p0[i].x * (i + 1) + 0.7 * p0[i].x * c, 1e-12, "Part v[%d]", i);
    }
  }
  {
    Grid g0 = {{0.5, -0.25, 1.0}, {0.75, 0.3, -0.6}};
    Grid g = g0, dg = {{0, 0, 0}, {0, 0, 0}};
    __enzyme_autodiff((void *)evolve, enzyme_dup, &g, &dg, enzyme_const, 0.7);
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 3; j++) {
        Grid p = g0, m = g0;
        p[i][j] += 1e-6;
        m[i][j] -= 1e-6;
        CHECK_CLOSE(dg[i][j], (evolve(p, 0.7) - evolve(m, 0.7)) / 2e-6, 1e-7, "grid d[%d][%d]", i, j);
      }
  }
  // A gradient called again and again on vectors that grow every time.
  for (int call = 0; call < 50; call++) {
    std::vector<double> v = exact(std::vector<double>{0.5, -0.25, 1.5}), dv = exact(std::vector<double>(3, 0.0));
    __enzyme_autodiff((void *)pushes, enzyme_dup, &v, &dv, enzyme_const, 0.3);
    if (call == 49) {
      std::vector<double> p = exact(std::vector<double>{0.5 + 1e-6, -0.25, 1.5}), q = exact(std::vector<double>{0.5 - 1e-6, -0.25, 1.5});
      CHECK_CLOSE(dv[0], (pushes(p, 0.3) - pushes(q, 0.3)) / 2e-6, 1e-7, "repeated calls d/dv[0]");
    }
  }
  return check_report();
}
