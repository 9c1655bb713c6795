// Every C++ operator new / delete form inside differentiated code, in both modes: aligned
// (std::align_val_t) new and delete, nothrow new, sized delete, new[] of an alignas(64) type
// (which calls the aligned array new), a std::vector of an over-aligned type, a class with a
// destructor (sized delete). Each shadow must come from the same operator new with the same
// alignment and go back through the matching delete. Reverse and forward vs. central finite
// differences, plus the dot-product test.
// RUN: %synthase-cxx -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cxx -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -O2 -fno-exceptions -I%inputs %s -o %t4 -lm && %t4
#include "check.h"
#include <new>
#include <vector>

#define N 11

struct alignas(64) Block {
  double v[8];
};

// ::operator new(n, align_val_t) / ::operator delete(p, align_val_t): the gradient used to be 0
static double aligned_operator_new(const double *x, int n) {
  double *v = static_cast<double *>(::operator new(sizeof(double) * n, std::align_val_t(64)));
  for (int i = 0; i < n; ++i)
    v[i] = x[i] * x[(i + 1) % n];
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += v[i] * sin(x[i]);
  ::operator delete(v, std::align_val_t(64));
  return s;
}

// new T[] of an alignas(64) type: _ZnamSt11align_val_t, released by the aligned delete[]
static double aligned_array_new(const double *x, int n) {
  Block *b = new Block[n];
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 8; ++k)
      b[i].v[k] = x[i] * (k + 1) + x[(i + k) % n];
  double s = 0;
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 8; ++k)
      s += b[i].v[k] * b[(i + 1) % n].v[7 - k] * 0.01;
  delete[] b;
  return s;
}

// one over-aligned object: aligned new, sized aligned delete
static double aligned_scalar_new(const double *x, int n) {
  Block *b = new Block;
  for (int k = 0; k < 8; ++k)
    b->v[k] = exp(0.1 * x[k % n]) * x[(k + 3) % n];
  double s = 0;
  for (int k = 0; k < 8; ++k)
    s += b->v[k] * b->v[(k + 1) % 8];
  delete b;
  return s;
}

// nothrow new (scalar and array) and the nothrow aligned form
static double nothrow_new(const double *x, int n) {
  double *a = new (std::nothrow) double[n];
  double *c = static_cast<double *>(
      ::operator new(sizeof(double) * n, std::align_val_t(32), std::nothrow));
  double *one = new (std::nothrow) double(0.5);
  for (int i = 0; i < n; ++i) {
    a[i] = x[i] * x[i];
    c[i] = a[i] * *one + x[(i + 2) % n];
  }
  *one = a[0] * c[n - 1];
  double s = *one;
  for (int i = 0; i < n; ++i)
    s += c[i] * a[(i + 1) % n];
  ::operator delete(c, std::align_val_t(32), std::nothrow);
  delete one;
  delete[] a;
  return s;
}

// a class with a destructor: new calls _Znwm, delete the sized _ZdlPvm
struct Acc {
  double *buf;
  int n;
  explicit Acc(int n) : buf(new double[n]()), n(n) {}
  ~Acc() { delete[] buf; }
};
static double sized_delete(const double *x, int n) {
  Acc *a = new Acc(n);
  for (int i = 0; i < n; ++i)
    a->buf[i] += x[i] * cos(x[(i + 1) % n]);
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += a->buf[i] * a->buf[(i + 4) % n];
  delete a;
  return s;
}

// std::vector of an over-aligned type: std::allocator calls the aligned operator new
static double vector_of_aligned(const double *x, int n) {
  std::vector<Block> v(3);
  for (int j = 0; j < 3; ++j)
    for (int k = 0; k < 8; ++k)
      v[j].v[k] = x[(j * 8 + k) % n] * (j + 1);
  v.push_back(v[0]); // grows: a second aligned block, the first one released
  double s = 0;
  for (size_t j = 0; j < v.size(); ++j)
    for (int k = 0; k < 8; ++k)
      s += v[j].v[k] * v[(j + 1) % v.size()].v[k];
  return s;
}

#define FDW(fn) \
  static double fn##_fd(const double *x, void *c) { (void)c; return fn(x, N); }
FDW(aligned_operator_new)
FDW(aligned_array_new)
FDW(aligned_scalar_new)
FDW(nothrow_new)
FDW(sized_delete)
FDW(vector_of_aligned)

#define CHECK_GRAD(fn, lo, hi)                                                                     \
  do {                                                                                             \
    double x[N], dx[N], g[N], v[N];                                                                \
    check_fill(x, N, lo, hi);                                                                      \
    for (int i = 0; i < N; ++i)                                                                    \
      dx[i] = 1.0;                                                                                 \
    __enzyme_autodiff((void *)fn, enzyme_dup, x, dx, enzyme_const, N);                             \
    check_fd_grad(fn##_fd, 0, x, N, g);                                                            \
    for (int i = 0; i < N; ++i)                                                                    \
      CHECK_CLOSE(dx[i] - 1.0, g[i], 1e-7, "rev %s d[%d] vs FD (+= into 1.0)", #fn, i);             \
    check_fill(v, N, -1, 1);                                                                       \
    double t_ = __enzyme_fwddiff((void *)fn, enzyme_dup, x, v, enzyme_const, N);                   \
    CHECK_CLOSE(t_, check_dot(g, v, N), 1e-7, "fwd %s vs FD", #fn);                                \
    for (int i = 0; i < N; ++i)                                                                    \
      dx[i] -= 1.0;                                                                                \
    CHECK_CLOSE(t_, check_dot(dx, v, N), 1e-12, "%s dot test", #fn);                               \
  } while (0)

int main() {
  check_seed(71);
  for (int t = 0; t < 3; ++t) {
    CHECK_GRAD(aligned_operator_new, -1.5, 1.5);
    CHECK_GRAD(aligned_array_new, -1.5, 1.5);
    CHECK_GRAD(aligned_scalar_new, -1.5, 1.5);
    CHECK_GRAD(nothrow_new, -1.5, 1.5);
    CHECK_GRAD(sized_delete, -1.5, 1.5);
    CHECK_GRAD(vector_of_aligned, -1.5, 1.5);
  }
  return check_report();
}
