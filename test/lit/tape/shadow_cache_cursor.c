// Reverse mode's shadow of a malloc'd block comes from the thread's shadow cache and goes back to
// it (Reverse/ShadowCache.cpp); the reverse sweep keeps the tape's top in a local, promoted to a
// phi, and writes it back once, before it returns (TapeCursor in Reverse/Tape.cpp).
// RUN: %clang -O1 -Xclang -disable-llvm-passes -S -emit-llvm %s -o %t.ll
// RUN: %opt -passes='synthase<no-postopt>' -S %t.ll | %FileCheck %s
#include <math.h>
#include <stdlib.h>
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

static double f(const double *x, long n) {
  double *t = (double *)malloc(sizeof(double) * n);
  double s = 0;
  for (long i = 0; i < n; ++i)
    t[i] = sin(x[i]);
  for (long i = 0; i < n; ++i)
    s += t[i] * cos(t[i]);
  free(t);
  return s;
}

void grad(const double *x, double *dx, long n) {
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n);
}

// CHECK-LABEL: define internal double @augmented_f(
// CHECK: %{{.*}}.shadow = call ptr @__synthase_shadow_get_v1(i64 %{{.*}}, i64 16)
// CHECK-NOT: @calloc(
// CHECK: ret double

// The top is stored before the return and where a loop is entered (the tape fields' round trip,
// Reverse/TapeFields.cpp), never per pop: the loop that pops the doubles goes through the phi.
// CHECK-LABEL: define internal void @reverse_f(
// CHECK: [[TOP:%.*]] = getelementptr inbounds nuw i8, ptr %tape, i64 8
// CHECK: call void @__synthase_shadow_put_v1(ptr
// CHECK-NEXT: store i64 {{.*}}, ptr [[TOP]]
// CHECK-NEXT: ret void
// CHECK: %tape.top.local{{.*}} = phi i64
// CHECK: %popped{{[0-9]*}} = load double
// CHECK-NOT: store i64 {{.*}}, ptr [[TOP]]
// CHECK: {{^}}}

// get: the smallest fitting cached block, zeroed; else calloc, or aligned_alloc beyond 16 bytes.
// CHECK: define linkonce_odr noalias ptr @__synthase_shadow_get_v1(i64 %0, i64 %1) #[[RT:[0-9]+]] comdat {
// CHECK: call {{.*}}ptr @llvm.threadlocal.address.p0(ptr {{.*}}@__synthase_shadow_cache_v1)
// CHECK: call void @llvm.memset
// CHECK: call ptr @calloc(
// CHECK: call ptr @aligned_alloc(
// put: keeps the block with its usable size in a free slot, else frees it; registers the
// thread-exit release once.
// CHECK: define linkonce_odr void @__synthase_shadow_put_v1(ptr %0) #[[RT]] comdat {
// CHECK: call i64 @malloc_usable_size(
// CHECK: call void @free(
// CHECK: call i32 @__cxa_thread_atexit_impl(ptr @__synthase_shadow_at_thread_exit_v1, ptr null, ptr @__dso_handle)
// CHECK: define linkonce_odr void @__synthase_shadow_at_thread_exit_v1(ptr %0) #[[RT]] comdat {
// CHECK: call void @__synthase_shadow_release_v1()
// CHECK: define linkonce_odr void @__synthase_shadow_release_v1() #[[RT]] comdat {
// CHECK: call void @free(
// CHECK: attributes #[[RT]] = { noinline nounwind "synthase-tape-runtime" }
