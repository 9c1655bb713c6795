// clang records `__attribute__((annotate("synthase_autodiff:...")))` in @llvm.global.annotations;
// the bridge moves it onto the placeholder, fills the body, and drops our annotation entry while
// keeping unrelated ones.
// RUN: %synthase-cc -O0 -S -emit-llvm %s -o - | %FileCheck %s
// RUN: %synthase-cc -O2 -S -emit-llvm %s -o - | %FileCheck %s
#include <synthase/autodiff.h>

double square(double x) { return x * x; }

synthase_autodiff_reverse(square, Active, ActiveOnly)
double dsquare(double x) { return 0; }

__attribute__((annotate("unrelated"))) int keep_me(void) { return 1; }

// CHECK: @llvm.global.annotations = {{.*}}[1 x {{.*}}@keep_me
// CHECK-NOT: synthase_autodiff:
// CHECK-LABEL: define {{.*}}double @dsquare(
// CHECK-NOT: ret double 0.0
// CHECK-NOT: __enzyme_autodiff
// CHECK: ret double
