// C++ members allocated inside a reverse-mode derivative that outlive it: a layer that caches its
// activations in a std::vector member during the call (the usual "keep for backward" pattern),
// and a vector argument grown with push_back from empty. The member's new buffer is the caller's
// after the call, and so is its shadow, which the shadow object's destructor frees: the reverse
// sweep used to free it too (a double free when the shadow object was destroyed), or hand it to
// the next call. Gradients against central differences and forward mode. Also under ASan
// (sanitizers/escaping.test).
// RUN: %synthase-cxx -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cxx -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
#include "check.h"
#include <cmath>
#include <vector>

struct Layer {
  std::vector<double> w, act;
};

static double forward(Layer *L, const double *x, int n) {
  L->act.assign(n, 0.0);
  for (int i = 0; i < n; i++)
    L->act[i] = std::tanh(L->w[i] * x[i]);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += L->act[i] * L->act[(i + 1) % n];
  return s;
}

static double collect(std::vector<double> *v, const double *x, int n) {
  for (int i = 0; i < n; i++)
    v->push_back(x[i] * x[(i + 1) % n]);
  double s = 0;
  for (double e : *v)
    s += std::sin(e);
  return s;
}

enum { N = 5 };
static const double W[N] = {0.5, -0.2, 0.9, 0.4, -0.7};

static double layer_value(const double *x, void *) {
  Layer L;
  L.w.assign(W, W + N);
  return forward(&L, x, N);
}
static double collect_value(const double *x, void *) {
  std::vector<double> v;
  return collect(&v, x, N);
}

int main() {
  double x[N] = {0.3, -0.5, 0.8, 1.1, 0.2}, v[N] = {0.4, -1, 0.3, 0.7, -0.2}, g[N];
  // Both calls' layers stay alive: each call's escaped shadow buffer is its own and keeps what the
  // caller wrote into it.
  Layer Ls[2], dLs[2];
  for (int call = 0; call < 2; call++) {
    Layer &L = Ls[call], &dL = dLs[call];
    L.w.assign(W, W + N);
    dL.w.assign(N, 0.0);
    double dx[N] = {0};
    __enzyme_autodiff((void *)forward, enzyme_dup, &L, &dL, enzyme_dup, x, dx, enzyme_const, N);
    check_fd_grad(layer_value, nullptr, x, N, g);
    for (int i = 0; i < N; i++)
      CHECK_CLOSE(dx[i], g[i], 1e-6, "layer: reverse d/dx%d vs FD", i);
    Layer L2, dL2;
    L2.w.assign(W, W + N);
    dL2.w.assign(N, 0.0);
    double t = __enzyme_fwddiff((void *)forward, enzyme_dup, &L2, &dL2, enzyme_dup, x, v, enzyme_const, N);
    CHECK_CLOSE(t, check_dot(dx, v, N), 1e-10, "layer: forward vs reverse");
    CHECK_TRUE(dL.act.size() == L.act.size(), "layer: the shadow member has the primal's size");
    dL.act.assign(dL.act.size(), 1.0 + call); // the caller's to use

    std::vector<double> c, dc;
    double dy[N] = {0};
    __enzyme_autodiff((void *)collect, enzyme_dup, &c, &dc, enzyme_dup, x, dy, enzyme_const, N);
    check_fd_grad(collect_value, nullptr, x, N, g);
    for (int i = 0; i < N; i++)
      CHECK_CLOSE(dy[i], g[i], 1e-6, "push_back: reverse d/dx%d vs FD", i);
    CHECK_TRUE(c.size() == N && dc.size() == N, "push_back: %zu elements, shadow %zu", c.size(), dc.size());
  }
  CHECK_TRUE(dLs[0].act.data() != dLs[1].act.data() && dLs[0].act.data() != Ls[0].act.data(),
             "layer: every call's escaped shadow buffer is its own");
  for (int i = 0; i < N; i++)
    CHECK_TRUE(dLs[0].act[i] == 1.0 && dLs[1].act[i] == 2.0, "layer: the shadow buffers kept the caller's values");
  return check_report(); // the shadow objects' destructors free the escaped shadow buffers
}
