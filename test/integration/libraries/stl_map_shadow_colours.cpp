// The shadow tree's node colours are not kept by the code around libstdc++'s tree helpers, so
// before repeating _Rb_tree_insert_and_rebalance / _Rb_tree_rebalance_for_erase /
// _Rb_tree_decrement on the shadow tree the derivative copies the colours the helper reads from
// the primal nodes (Rules/NodeLinks.cpp). Here the shadow map passed with enzyme_dup is a copy of
// the map whose colours are scrambled on purpose: without that copy of colours the shadow tree's
// rebalancing would take other rotations than the primal one, the trees would no longer have the
// same shape, and values would be read through the wrong shadows. Insertions and erasures in
// forward mode, erasures in reverse mode (a node added to a map passed in would get a shadow that
// the reverse sweep frees while the shadow map still holds it, like every shadow allocation);
// both against central finite differences.
// RUN: %synthase-cxx -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cxx -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
#include "check.h"
#include <map>

enum { N = 16 };
typedef std::map<double, double> Map;

static double f(Map *m, const double *x, int grow) {
  if (grow) {
    for (int i = 0; i < N; i++)
      (*m)[x[i]] = x[i] * x[(i + 3) % N];
    for (int i = 0; i < N; i += 3)
      m->erase(x[i]);
  } else {
    for (int i = 0; i < N; i++)
      (*m)[0.05 * i + 3.0] *= x[i] * x[(i + 3) % N]; // operator[] of keys already there
  }
  for (int k = 0; k < 40; k += 3)
    m->erase(0.05 * k + 3.0); // keys that were in the map before
  double s = 0;
  for (auto it = m->rbegin(); it != m->rend(); ++it) // decrements
    s = 0.9 * s + it->second * std::sin(it->first);
  return s;
}

static Map start() {
  Map m;
  for (int k = 0; k < 40; k++)
    m[0.05 * k + 3.0] = 0.1 * k;
  return m;
}

// A shadow map: the same shape, zero keys and values (the shadow's keys are the keys' shadows;
// their order is never consulted), colours scrambled (libstdc++ exposes the node).
static void scramble(Map &d) {
  unsigned r = 12345;
  for (auto it = d.begin(); it != d.end(); ++it) {
    const_cast<double &>(it->first) = 0;
    it->second = 0;
    r = r * 1103515245u + 12345u;
    it._M_node->_M_color = (r >> 16) & 1 ? std::_S_red : std::_S_black;
  }
}

static double fd_wrap(const double *x, void *grow) {
  Map m = start();
  return f(&m, x, grow != nullptr);
}

int main() {
  double x[N], fd[N], fdg[N], g[N] = {0};
  for (int i = 0; i < N; i++)
    x[i] = 0.13 * ((i * 7) % N) - 0.9; // keys well apart, below the start map's
  check_fd_grad(fd_wrap, nullptr, x, N, fd);
  check_fd_grad(fd_wrap, (void *)1, x, N, fdg);
  {
    Map m = start(), d = m;
    scramble(d);
    __enzyme_autodiff((void *)f, enzyme_dup, &m, &d, enzyme_dup, x, g, enzyme_const, 0);
  }
  for (int i = 0; i < N; i++) {
    CHECK_CLOSE(g[i], fd[i], 1e-6, "scrambled shadow colours: reverse d/dx[%d] vs FD", i);
    for (int grow = 0; grow < 2; grow++) {
      Map m = start(), d = m;
      scramble(d);
      double e[N] = {0};
      e[i] = 1;
      double t = __enzyme_fwddiff((void *)f, enzyme_dup, &m, &d, enzyme_dup, x, e, enzyme_const, grow);
      CHECK_CLOSE(t, grow ? fdg[i] : fd[i], 1e-6, "scrambled shadow colours: forward (grow %d) d/dx[%d] vs FD", grow, i);
      if (!grow)
        CHECK_CLOSE(t, g[i], 1e-10, "scrambled shadow colours: forward vs reverse [%d]", i);
    }
  }
  return check_report();
}
