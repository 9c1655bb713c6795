; Found by the libFuzzer target over call-site lowering built with AddressSanitizer (issue 8,
; -DSYNTHASE_FUZZ_COVERAGE=ON -DCMAKE_CXX_FLAGS=-fsanitize=address): with post-optimization on,
; Engine::cleanup() calls use_empty() on a cached primal clone that the inlining post-pass has
; already deleted (heap-use-after-free, Engine.cpp:36 via Lowering.cpp:253). A normal build reads
; freed memory silently, so this test only fails in an ASan build of synthase-opt; the input is
; kept in tools/fuzz-lowering/corpus/engine_cleanup_uaf.
; RUN: %synthase-opt %s -S -o - | FileCheck %s
; CHECK: define double @caller(
; CHECK-NOT: __enzyme_autodiff
@enzyme_out = external global i32
@enzyme_const = external global i32

define internal double @t_scalar(double %x, double %y) {
  %m = fmul double %x, %y
  %s = call double @llvm.sin.f64(double %m)
  %r = fadd double %s, %x
  ret double %r
}

define double @caller(double %x, double %y) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @t_scalar, ptr @enzyme_out, double %x, ptr @enzyme_const, double %y)
  ret double %r
}

declare double @__enzyme_autodiff(ptr, ...)
declare double @llvm.sin.f64(double)
