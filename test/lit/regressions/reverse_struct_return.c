// Found by the libFuzzer target over call-site lowering (issue 8): reverse mode of a function
// that returns a struct of two doubles ({ double, double } in IR) builds a call to the reverse
// function with a ppc_fp128 seed, and the module does not verify ("internal error: the module
// does not verify after AD"). Expected: a diagnostic with a hint, never invalid IR. Without an
// explicit seed this call is now refused (diagnostics/struct_return_no_seed.c); with one it
// differentiates (integration/struct_seed.c).
// RUN: %synthase-cc -O0 -c %s -o %t0.o > %t0.log 2>&1 || true
// RUN: FileCheck --allow-empty %s < %t0.log
// RUN: %synthase-cc -O2 -c %s -o %t2.o > %t2.log 2>&1 || true
// RUN: FileCheck --allow-empty %s < %t2.log
// CHECK-NOT: internal error
// CHECK-NOT: does not verify
typedef struct { double a, b; } P2;
typedef struct { double dx, dy; } G2;
G2 __enzyme_autodiff(void *, ...);

static P2 f(double x, double y) {
  P2 r = {x * y, x + y};
  return r;
}

G2 g(double x, double y) { return __enzyme_autodiff((void *)f, x, y); }
