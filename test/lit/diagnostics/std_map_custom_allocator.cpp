// A std::map whose allocator hands out memory without a shadow (here from a function with no body
// in the module): the tree's header has a shadow (a local), its nodes do not, so repeating
// _Rb_tree_insert_and_rebalance on the shadow tree is impossible and the shadow tree would fall
// out of step with the primal one. Refused in both modes, naming the call.
// RUN: not %synthase-cxx -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cxx -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cxx -O2 -DFORWARD -c %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: synthase: in function 'f(double const*, int)': 'std::_Rb_tree_insert_and_rebalance{{.*}}' links nodes of a std::map, std::set or std::list where only some of them have derivative memory
// CHECK: hint: build the container inside the differentiated function with the default allocator
#include <cstddef>
#include <map>
extern "C" {
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
void *pool_take(std::size_t);
}

template <class T> struct Pool {
  using value_type = T;
  Pool() = default;
  template <class U> Pool(const Pool<U> &) {}
  T *allocate(std::size_t n) { return static_cast<T *>(pool_take(n * sizeof(T))); }
  void deallocate(T *, std::size_t) {} // the pool is released as a whole
  template <class U> void destroy(U *p) { p->~U(); }
  template <class U> bool operator==(const Pool<U> &) const { return true; }
};

double f(const double *x, int n) {
  std::map<int, int, std::less<int>, Pool<std::pair<const int, int>>> count;
  double s = 0;
  for (int i = 0; i < n; i++) {
    count[i % 3]++;
    s += x[i] * count[i % 3];
  }
  return s;
}

double grad(const double *x, double *g, double *t) {
#ifdef FORWARD
  return __enzyme_fwddiff((void *)f, enzyme_dup, x, t, enzyme_const, 5);
#else
  return __enzyme_autodiff((void *)f, enzyme_dup, x, g, enzyme_const, 5);
#endif
}
