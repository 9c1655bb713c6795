// A function whose every path ends in unreachable code (here a store through a pointer the
// simplifier proves null: a never-written static union) still compiles, in both modes, with a
// warning: its forward sweep never hands over to the reverse one, which traps. Enzyme accepts it
// too, and code that is never called must not break the build.
// RUN: %synthase-cc -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: %synthase-cc -O2 -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=ANY
// CHECK: warning: synthase: in function 'divide': 'divide' never returns (every path ends in unreachable code)
// ANY-NOT: error
extern int enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
union Slot {
  long bits;
  double *ptr;
};
static union Slot slot;
double divide(double x, double y) {
  double q = x / y;
  *slot.ptr = x;
  return q + slot.bits;
}
double d_divide(double x) { return __enzyme_autodiff((void *)divide, enzyme_out, x, enzyme_const, 3.0); }
double t_divide(double x) { return __enzyme_fwddiff((void *)divide, x, 1.0, enzyme_const, 3.0); }
