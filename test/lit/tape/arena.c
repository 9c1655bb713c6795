// The tape's per-thread arena (Reverse/TapeArena.cpp), IR shape. A call site whose gradient uses
// the tape takes the thread's cached buffer, leaves the arena empty while the sweeps run, and
// gives the buffer back with two stores; realloc happens only on the unlikely growth branch,
// and free only in the helpers. A gradient whose tape is empty or surely fits the caller's frame
// buffer gets no arena code.
// RUN: %clang -O1 -Xclang -disable-llvm-passes -S -emit-llvm %s -o %t.ll
// RUN: %opt -passes='synthase<no-postopt>' -S %t.ll | %FileCheck %s
// RUN: %synthase-cc -O2 -S -emit-llvm %s -o - | %FileCheck %s --check-prefix=O2
// RUN: %synthase-cc -O0 -g -S -emit-llvm %s -o - | %FileCheck %s --check-prefix=DBG

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
void synthase_release_tape(void);

/* Tapes each sine (calls are never recomputed in the reverse sweep). */
static double pairs(const double *x, long n) {
  double s = 0;
  for (long i = 0; i + 1 < n; ++i)
    s += x[i + 1] * __builtin_sin(x[i]);
  return s;
}

void grad_loop(const double *x, double *dx, long n, int reps) {
  for (int r = 0; r < reps; ++r)
    __enzyme_autodiff((void *)pairs, enzyme_dup, x, dx, enzyme_const, n);
}

static double square(double x) { return x * x; }
double grad_square(double x) { return __enzyme_autodiff((void *)square, x); }

/* Tapes sin's argument, but without a loop its tape has a known size (8 bytes) and stays in the
 * caller's frame, where it folds into registers. */
static double smooth(double x) { return __builtin_sin(x * x) * __builtin_exp(x); }
double grad_smooth(double x) { return __enzyme_autodiff((void *)smooth, x); }

/* A gradient computed inside a function that is itself differentiated (nested AD). */
static double inner(const double *x) {
  double g[64] = {0};
  __enzyme_autodiff((void *)pairs, enzyme_dup, x, g, enzyme_const, 64L);
  return g[1];
}
static double outer(const double *y, const double *x) { return y[0] * y[1] * inner(x); }
void grad_outer(const double *y, double *dy, const double *x) {
  __enzyme_autodiff((void *)outer, enzyme_dup, y, dy, enzyme_const, x);
}

void release(void) { synthase_release_tape(); }

// One arena per thread, shared by every module of the program:
// CHECK-DAG: $__synthase_tape_arena_v1 = comdat any
// CHECK-DAG: @__synthase_tape_arena_v1 = linkonce_odr thread_local global { ptr, i64, i64 } zeroinitializer, comdat, align 8
// CHECK-DAG: @__dso_handle = extern_weak hidden global i8

// The call site: take, sweeps, give back; no allocator call of its own.
// CHECK-LABEL: define {{.*}}void @grad_loop(
// CHECK-NOT: {{@malloc|@calloc|@realloc|@free}}
// CHECK: [[ARENA:%.*]] = call {{.*}}ptr @llvm.threadlocal.address.p0(ptr {{.*}}@__synthase_tape_arena_v1)
// CHECK: [[CAPP:%.*]] = getelementptr inbounds nuw { ptr, i64, i64 }, ptr [[ARENA]], i32 0, i32 1
// CHECK-NEXT: %tape.cached.cap = load i64, ptr [[CAPP]]
// CHECK-NEXT: %tape.cached = call ptr @__synthase_tape_take_v1()
// CHECK-NEXT: %tape.reused = icmp ne ptr %tape.cached, null
// CHECK-NEXT: select i1 %tape.reused, ptr %tape.cached, ptr %synthase.tape.inline
// CHECK-NEXT: select i1 %tape.reused, i64 %tape.cached.cap, i64 512
// CHECK: call double @augmented_pairs({{.*}}, ptr %synthase.tape)
// CHECK-NEXT: call void @reverse_pairs({{.*}}, ptr %synthase.tape)
// CHECK: [[NOWP:%.*]] = getelementptr inbounds nuw { ptr, i64, i64 }, ptr [[ARENA]], i32 0, i32 0
// CHECK-NEXT: [[NOW:%.*]] = load ptr, ptr [[NOWP]]
// CHECK-NEXT: [[EMPTY:%.*]] = icmp eq ptr [[NOW]], null
// CHECK-NEXT: [[FAST:%.*]] = and i1 %tape.reused, [[EMPTY]]
// CHECK-NEXT: br i1 [[FAST]], label %[[BACK:[0-9]+]], label %[[SLOW:[0-9]+]], !prof ![[LIKELY:[0-9]+]]
// CHECK: [[BACK]]:
// CHECK-NEXT: store ptr %{{.*}}, ptr [[NOWP]]
// CHECK: [[SLOW]]:
// CHECK-NEXT: icmp ugt i64 %{{.*}}, 512
// CHECK-NEXT: br i1 %{{.*}}, label %[[PUT:[0-9]+]], label %{{.*}}, !prof ![[UNLIKELY:[0-9]+]]
// CHECK: [[PUT]]:
// CHECK-NEXT: call void @__synthase_tape_put_v1(
// CHECK-NOT: {{@malloc|@calloc|@realloc|@free}}
// CHECK: ret void

// No tape, or a tape of known size that fits the frame buffer: no arena.
// CHECK-LABEL: define {{.*}}double @grad_square(
// CHECK-NOT: threadlocal
// CHECK: ret double
// CHECK-LABEL: define {{.*}}double @grad_smooth(
// CHECK-NOT: threadlocal
// CHECK: call double @augmented_smooth(
// CHECK-NOT: threadlocal
// CHECK: ret double

// The helper that frees early (the program declared it):
// CHECK: define linkonce_odr void @synthase_release_tape() #[[RT:[0-9]+]] comdat {
// CHECK: call {{.*}}@llvm.threadlocal.address.p0(ptr {{.*}}@__synthase_tape_arena_v1)
// CHECK: call void @free(

// Growth: one compare per reservation, realloc on the unlikely branch.
// CHECK-LABEL: define internal {{.*}} @augmented_pairs(
// CHECK: [[FULL:%.*]] = icmp ugt i64
// CHECK-NEXT: br i1 [[FULL]], label %[[GROW:[0-9]+]], label %{{.*}}, !prof ![[UNLIKELY]]
// CHECK: [[GROW]]:
// CHECK: call ptr @realloc(

// Taking leaves the arena empty; nothing else points to the buffer then, hence noalias.
// CHECK: define linkonce_odr noalias ptr @__synthase_tape_take_v1() #[[EXITATTR:[0-9]+]] comdat {
// CHECK: [[A:%.*]] = call {{.*}}ptr @llvm.threadlocal.address.p0(ptr {{.*}}@__synthase_tape_arena_v1)
// CHECK: [[B:%.*]] = load ptr, ptr
// CHECK-NEXT: store ptr null, ptr
// CHECK: store i64 0, ptr
// CHECK-NEXT: ret ptr [[B]]

// Giving back the slow way keeps the larger buffer and registers the thread-exit release once.
// CHECK: define linkonce_odr void @__synthase_tape_put_v1(ptr %0, i64 %1) #[[PUTATTR:[0-9]+]] comdat {
// CHECK: call void @free(
// CHECK: call i32 @__cxa_thread_atexit_impl(ptr @__synthase_tape_at_thread_exit_v1, ptr null, ptr @__dso_handle)
// CHECK: declare extern_weak i32 @__cxa_thread_atexit_impl(ptr, ptr, ptr)
// CHECK: define linkonce_odr void @__synthase_tape_at_thread_exit_v1(ptr %0) #[[EXITATTR]] comdat {
// CHECK: call void @free(

// Nested: inside the derivative of outer, the inner call site has a private, empty arena (folded
// away), so its tape starts in its frame buffer, shadowed like any local array (from the shadow
// cache), and what it grew is freed: the thread's cached buffer has no shadow to differentiate
// with.
// CHECK-LABEL: define internal {{.*}} @augmented_outer(
// CHECK-NOT: {{@__synthase_tape_arena_v1|@__synthase_tape_put_v1|@__synthase_tape_take_v1}}
// CHECK: %synthase.tape.inline{{.*}}.shadow = call ptr @__synthase_shadow_get_v1(i64 512, i64 16)
// CHECK-NOT: {{@__synthase_tape_arena_v1|@__synthase_tape_put_v1|@__synthase_tape_take_v1}}
// CHECK: call void @free(
// CHECK-NOT: {{@__synthase_tape_arena_v1|@__synthase_tape_put_v1|@__synthase_tape_take_v1}}
// CHECK: ret double

// CHECK-DAG: attributes #[[RT]] = { {{.*}}"synthase-tape-runtime"
// CHECK-DAG: attributes #[[PUTATTR]] = { cold noinline nounwind "synthase-tape-runtime" }
// CHECK-DAG: attributes #[[EXITATTR]] = { noinline nounwind "synthase-tape-runtime" }
// CHECK-DAG: ![[LIKELY]] = !{!"branch_weights", i32 1048575, i32 1}
// CHECK-DAG: ![[UNLIKELY]] = !{!"branch_weights", i32 1, i32 1048575}

// Optimized (the sweeps inlined into the loop), the call site still calls no free: the cold put
// and the growth realloc are its only heap calls.
// O2-LABEL: define {{.*}}void @grad_loop(
// O2-NOT: call void @free(
// O2: call {{.*}}@llvm.threadlocal.address.p0(ptr {{.*}}@__synthase_tape_arena_v1)
// O2-NOT: call void @free(
// O2: call void @__synthase_tape_put_v1(
// O2-NOT: call void @free(
// O2-LABEL: define {{.*}}double @grad_square(

// -g: the declaration's subprogram does not follow it into the definition.
// DBG: define linkonce_odr void @synthase_release_tape() #{{[0-9]+}} comdat {
