// Running selects (Reverse/RunningSelect.cpp), IR shape: k-means' `best = dist < best ? dist :
// best` tapes the counter of the last centroid that won, once per point (a load of the forward
// sweep's local at the inner loop's exit), and no comparison flag; the reverse of the select
// compares the rebuilt counter with it. When the running value is also used by other arithmetic
// in the loop, the rule does not apply: no last pick, and the value is taped as before.
// RUN: %clang -O1 -Xclang -disable-llvm-passes -fno-discard-value-names -I%inputs -S -emit-llvm %s -o %t.ll
// RUN: %opt -passes='synthase<no-postopt>' -synthase-tape-report -disable-output %t.ll 2>&1 | %FileCheck %s --check-prefix=KM
// RUN: %opt -passes='synthase<no-postopt>' -synthase-tape-report -disable-output %t.ll 2>&1 | %FileCheck %s --check-prefix=UI
// RUN: %opt -passes='synthase<no-postopt>' -S %t.ll | %FileCheck %s --check-prefix=REV

// KM-LABEL: tape of augmented_kmeans:
// KM-NEXT:   block for.inc{{[0-9]*}} (8 bytes):
// KM-NEXT:     %{{.*}}.lastpick{{[0-9]*}} = load i64, ptr %{{.*}}.lastpick,
// KM-NOT:    fcmp
// KM-NOT:    block

// UI-LABEL: tape of augmented_used_inside:
// UI-NOT:    lastpick
// UI:        %best.0 = phi double
// UI-NOT:    lastpick
// UI:      tape of augmented_kmeans:

// REV-LABEL: define {{.*}} @augmented_kmeans(
// REV:         %[[LAST:[^ ]*lastpick[^ ]*]] = phi i64 [ -1, %{{.*}} ]
// REV:         select i1 %cmp{{[0-9]*}}, i64 %j.0, i64 %[[LAST]]
// REV-LABEL: define {{.*}} @reverse_kmeans(
// REV:         %{{.*}}.picked = icmp eq i64 %{{.*}}, %popped
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

/* The nearest centroid by a running minimum: one counter per point is taped, no flag per pair. */
#include "tape_kmeans.h"

void grad_kmeans(const double *pts, const double *cen, double *dcen, long n, long k, long d) {
  __enzyme_autodiff((void *)kmeans, enzyme_const, pts, enzyme_dup, cen, dcen, enzyme_const, n, enzyme_const, k,
                    enzyme_const, d);
}

/* used_inside (tape_kmeans.h) is not a running select: the running value is also multiplied in
 * the loop, so no last pick is taped. */
void grad_used_inside(const double *w, double *dw, long n) {
  __enzyme_autodiff((void *)used_inside, enzyme_dup, w, dw, enzyme_const, n);
}
