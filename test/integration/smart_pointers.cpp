// Ownership types inside differentiated code: std::shared_ptr (make_shared, copies, weak_ptr:
// the control block's atomic use/weak counts sit next to the active object), std::unique_ptr,
// a std::vector with a user allocator returning 64-byte aligned blocks (libstdc++ reaches it
// through variadic overload-resolution fallbacks such as allocator_traits::_S_max_size(a, ...)),
// and over-aligned element types. Reverse and forward vs. central differences, and each other.
// RUN: %synthase-cxx -O0 -I%inputs %s -o %t0 && %t0
// RUN: %synthase-cxx -O2 -I%inputs %s -o %t2 && %t2
// RUN: %synthase-cxx -O3 -march=native -I%inputs %s -o %t3 && %t3
#include "check.h"
#include <algorithm>
#include <cmath>
#include <memory>
#include <new>
#include <vector>

#define N 6

template <class T> struct AlignedAlloc {
  using value_type = T;
  AlignedAlloc() = default;
  template <class U> AlignedAlloc(const AlignedAlloc<U> &) {}
  T *allocate(size_t n) { return static_cast<T *>(::operator new(n * sizeof(T), std::align_val_t(64))); }
  void deallocate(T *p, size_t) { ::operator delete(p, std::align_val_t(64)); }
  template <class U> bool operator==(const AlignedAlloc<U> &) const { return true; }
  template <class U> bool operator!=(const AlignedAlloc<U> &) const { return false; }
};

struct alignas(32) Particle {
  double pos[3];
  double mass;
};

struct Layer {
  std::unique_ptr<double[]> w;
  std::shared_ptr<std::vector<double>> bias;
};

static double shared_state(const double *x, int n) {
  auto v = std::make_shared<std::vector<double>>(x, x + n);
  std::shared_ptr<std::vector<double>> alias = v; // use count 2, then back to 1
  std::weak_ptr<std::vector<double>> watch = v;
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += std::sin((*alias)[i]) * (*v)[(i + 1) % n];
  alias.reset();
  if (auto locked = watch.lock())
    s += (*locked)[0] * (*locked)[n - 1];
  return s;
}

static double layers(const double *x, int n) {
  std::vector<Layer> ls;
  for (int l = 0; l < 3; ++l) {
    Layer L;
    L.w = std::make_unique<double[]>(n);
    L.bias = std::make_shared<std::vector<double>>(n, 0.1 * l);
    for (int i = 0; i < n; ++i)
      L.w[i] = x[i] * (l + 1) + (l ? ls[l - 1].w[(i + 1) % n] * x[i] : 0.0);
    ls.push_back(std::move(L));
  }
  double s = 0;
  for (auto &L : ls)
    for (int i = 0; i < n; ++i)
      s += std::tanh(L.w[i] + (*L.bias)[i]);
  return s;
}

static double aligned(const double *x, int n) {
  std::vector<double, AlignedAlloc<double>> a(x, x + n);
  std::vector<Particle> ps;
  for (int i = 0; i < n; ++i)
    ps.push_back(Particle{{a[i], a[i] * a[i], std::sin(a[i])}, 1.0 + i});
  Particle *rev = new Particle[n];
  for (int i = 0; i < n; ++i)
    rev[i] = ps[n - 1 - i];
  std::vector<double, AlignedAlloc<double>> t(a.begin(), a.end());
  std::sort(t.begin(), t.end());
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += rev[i].pos[1] * ps[i].pos[2] / rev[i].mass + t[i] * a[i];
  delete[] rev;
  return s;
}

int main() {
  check_seed(91);
  for (int t = 0; t < 3; ++t) {
    check_gradient_fn<N, shared_state>("shared_ptr");
    check_gradient_fn<N, layers>("unique_ptr+shared_ptr");
    check_gradient_fn<N, aligned>("aligned allocator");
  }
  return check_report();
}
