// Enzyme's source attributes are accepted without any warning (clang would otherwise say
// "unknown attribute ... ignored" and the gradient would silently change meaning), reach the IR
// as the forms the engine reads (Enzyme's own: "enzyme_inactive", "enzyme_math"="log1p",
// !enzyme_inactive, nofree), and an inactive global gets no shadow.
// RUN: %synthase-cc -O0 -Wall -Wextra -S -emit-llvm %s -o %t.ll 2>&1 | FileCheck --allow-empty --implicit-check-not=warning --check-prefix=DIAG %s
// RUN: FileCheck %s < %t.ll
// RUN: %synthase-cxx -x c++ -O2 -Wall -Wextra -S -emit-llvm %s -o %t2.ll 2>&1 | FileCheck --allow-empty --implicit-check-not=warning --check-prefix=DIAG %s
// RUN: %clang -fplugin=%clang-plugin -fpass-plugin=%plugin -O2 -Wall -c %s -o /dev/null 2>&1 | FileCheck --allow-empty --implicit-check-not=warning --check-prefix=DIAG %s
// One file for both plugin flags: Synthase.so, loaded by clang (-fplugin or -fpass-plugin; both are
// loaded before parsing), brings in SynthaseClang.so itself.
// RUN: %clang -fplugin=%plugin -fpass-plugin=%plugin -O0 -Wall -S -emit-llvm %s -o %t3.ll 2>&1 | FileCheck --allow-empty --implicit-check-not=warning --check-prefix=DIAG %s
// RUN: FileCheck %s < %t3.ll
// RUN: %clang -fpass-plugin=%plugin -O2 -Wall -c %s -o /dev/null 2>&1 | FileCheck --allow-empty --implicit-check-not=warning --check-prefix=DIAG %s
// Without the plugin clang does warn: the plugin is what makes the difference.
// RUN: %clang -O0 -c %s -o /dev/null 2>&1 | FileCheck --check-prefix=NOPLUGIN %s
// NOPLUGIN: warning: unknown attribute 'enzyme_inactive' ignored
// DIAG-NOT: warning
//
// CHECK-DAG: @scratch = {{.*}}!enzyme_inactive
// CHECK-NOT: scratch.synthase.shadow
// CHECK-DAG: define {{.*}} @log_value({{.*}} #[[INACTIVE:[0-9]+]]
// CHECK-DAG: define {{.*}} @quiet_wait({{.*}} #[[NOBLOCK:[0-9]+]]
// CHECK-DAG: define {{.*}} @my_log1p({{.*}} #[[LIKE:[0-9]+]]
// CHECK-DAG: define {{.*}} @keep({{.*}} #[[NOFREE:[0-9]+]]
// CHECK-DAG: attributes #[[INACTIVE]] = { {{.*}}noinline{{.*}}"enzyme_inactive"
// CHECK-DAG: attributes #[[NOBLOCK]] = { {{.*}}"enzyme_inactive" "enzyme_inactive_noblock"
// CHECK-DAG: attributes #[[LIKE]] = { {{.*}}noinline{{.*}}"enzyme_math"="log1p"
// CHECK-DAG: attributes #[[NOFREE]] = { {{.*}}nofree
#include <math.h>
#include <stdio.h>
#ifdef __cplusplus
extern "C" {
#endif
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
int counter;
__attribute__((enzyme_inactive)) double scratch[4];
__attribute__((enzyme_inactive)) void log_value(double v) { ++counter; printf("%g\n", v); }
__attribute__((enzyme_inactive_noblock)) void quiet_wait(double v) { counter += v > 0; }
__attribute__((enzyme_function_like("log1p"))) double my_log1p(double x) { return log(1 + x); }
__attribute__((enzyme_nofree)) double keep(double *p) { return p[0]; }
[[enzyme::inactive]] int other_counter;
double f(double x) {
  log_value(x);
  quiet_wait(x);
  scratch[0] = x;
  ++other_counter;
  return my_log1p(x) * keep(&x);
}
double df(double x) { return __enzyme_autodiff((void *)f, x) + __enzyme_fwddiff((void *)f, x, 1.0); }
#ifdef __cplusplus
}
#endif
