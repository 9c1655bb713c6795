// The shadowed tape arena (Reverse/ShadowedTapeArena.cpp), IR shape. In a width-1 forward
// derivative of a function holding a lowered reverse call site (forward over reverse), the inner
// tape is taken from the thread's shadowed arena together with its shadow, and given back with
// it: the shadow is handed over right before the buffer, neither is freed. Vector forward mode
// and a third-order derivative (forward over the Hessian-vector product) keep their inner tapes
// private: they start in the frame buffers, grow with realloc and are freed.
// RUN: %clang -O1 -Xclang -disable-llvm-passes -S -emit-llvm %s -o %t.ll
// RUN: %opt -passes='synthase<no-postopt>' -S %t.ll | %FileCheck %s

extern int enzyme_dup, enzyme_const, enzyme_width;
double __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);
double __enzyme_fwddiff_d(void *, ...) __asm__("__enzyme_fwddiff");
void synthase_release_tape(void);

static double pairs(const double *x, long n) {
  double s = 0;
  for (long i = 0; i + 1 < n; ++i)
    s += x[i + 1] * __builtin_sin(x[i]); // one sine taped per step, so the inner tape grows
  return s;
}

static void grad(const double *x, double *g, long n) {
  for (long i = 0; i < n; ++i)
    g[i] = 0;
  __enzyme_autodiff((void *)pairs, enzyme_dup, x, g, enzyme_const, n);
}

void hvp(const double *x, const double *v, double *g, double *hv, long n) {
  __enzyme_fwddiff((void *)grad, enzyme_dup, x, v, enzyme_dup, g, hv, enzyme_const, n);
}

void hvp2(const double *x, const double *v, const double *w, double *g, double *hv, double *hw, long n) {
  __enzyme_fwddiff((void *)grad, enzyme_width, 2, enzyme_dup, x, v, w, enzyme_dup, g, hv, hw, enzyme_const, n);
}

static double hvp_first(const double *x, const double *v, double *g, double *hv, long n) {
  hvp(x, v, g, hv, n);
  return hv[0];
}
double third(const double *x, const double *w, const double *v, double *g, double *dg, double *hv, double *dhv, long n) {
  return __enzyme_fwddiff_d((void *)hvp_first, enzyme_dup, x, w, enzyme_const, v, enzyme_dup, g, dg, enzyme_dup, hv, dhv, enzyme_const, n);
}

void release(void) { synthase_release_tape(); }

// CHECK-DAG: @__synthase_tape_shadowed_arena_v1 = linkonce_odr thread_local global { ptr, i64, i64, ptr, ptr } zeroinitializer, comdat, align 8

// The early release frees the shadowed pair too.
// CHECK-LABEL: define linkonce_odr void @synthase_release_tape()
// CHECK: @__synthase_tape_arena_v1
// CHECK: @__synthase_tape_shadowed_arena_v1
// CHECK: ret void

// Vector forward mode over the gradient: private inner tapes (one per lane and the primal).
// CHECK-LABEL: define internal void @fwddiffe_grad(ptr noundef %0, ptr %d_, ptr %d_1,
// CHECK-NOT: {{@__synthase_tape_[a-z_]*v1}}
// CHECK: call ptr @realloc(
// CHECK: call void @free(
// CHECK-NOT: {{@__synthase_tape_[a-z_]*v1}}
// CHECK: ret void

// The pair is kept only whole and only if larger; the other pair is freed.
// CHECK-LABEL: define linkonce_odr void @__synthase_tape_shadowed_put_v1(ptr %0, i64 %1)
// CHECK: icmp ugt i64 %1,
// CHECK: icmp ne ptr
// CHECK: call void @free(
// CHECK: call void @free(
// CHECK: call i32 @__cxa_thread_atexit_impl(ptr @__synthase_tape_shadowed_at_thread_exit_v1, ptr null, ptr @__dso_handle)

// Forward over reverse: the pair comes from the shadowed arena and goes back to it.
// CHECK-LABEL: define internal void @fwddiffe_grad.{{[0-9]+}}(ptr noundef %0, ptr %d_, ptr noundef %1, ptr %d_1, i64 noundef %2)
// CHECK-NOT: {{@free|@__synthase_tape_arena_v1|@__synthase_tape_take_v1|@__synthase_tape_put_v1}}
// CHECK: %tape.cached.cap{{[0-9]*}} = call i64 @__synthase_tape_shadowed_cap_v1()
// CHECK-NEXT: %tape.cached = call ptr @__synthase_tape_shadowed_take_v1()
// CHECK-NEXT: %tape.cached.shadow = call ptr @__synthase_tape_shadowed_take_shadow_v1()
// CHECK-NEXT: %tape.reused.not = icmp eq ptr %tape.cached, null
// CHECK-NEXT: select i1 %tape.reused.not, ptr %synthase.tape.inline, ptr %tape.cached
// CHECK-NEXT: select i1 %tape.reused.not, ptr %synthase.tape.inline.shadow, ptr %tape.cached.shadow
// CHECK-NOT: {{@free|@__synthase_tape_arena_v1|@__synthase_tape_take_v1|@__synthase_tape_put_v1}}
// CHECK: call void @__synthase_tape_shadowed_put_shadow_v1(ptr [[SHADOW:%.*]])
// CHECK-NEXT: call void @__synthase_tape_shadowed_put_v1(ptr [[BUF:%.*]], i64
// CHECK-NOT: {{@free}}
// CHECK: ret void

// Third order: the Hessian-vector product's pair would need shadows of its own, so inside this
// derivative its tapes are private (four of them: the tape, its two tangents, and theirs).
// CHECK-LABEL: define internal double @fwddiffe_hvp_first(
// CHECK-NOT: {{@__synthase_tape_[a-z_]*v1}}
// CHECK-COUNT-4: call ptr @realloc(
// CHECK-NOT: {{@__synthase_tape_[a-z_]*v1}}
// CHECK-COUNT-4: call void @free(
// CHECK-NOT: {{@__synthase_tape_[a-z_]*v1}}
// CHECK: ret double
