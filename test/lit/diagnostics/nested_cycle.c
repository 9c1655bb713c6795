// A function that differentiates itself (directly or through a callee) has no finite derivative:
// the call is refused with a message that says so, instead of "cannot differentiate call to
// external function '__enzyme_autodiff'".
// RUN: not %synthase-cc -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: synthase: in function 'helper': 'f' is differentiated by a call that 'f' itself runs (directly or through its callees): its derivative would contain itself
// CHECK: hint: differentiate a function that does not contain this call
// CHECK-NOT: external function '__enzyme_autodiff'
extern int enzyme_out;
double __enzyme_autodiff(void *, ...);
double f(double x);
__attribute__((noinline)) double helper(double x) { return __enzyme_autodiff((void *)f, enzyme_out, x); }
double f(double x) { return x * x + (x > 10 ? helper(x - 1) : 0); }
