// The function to differentiate read from a table of function pointers at run time: a clear
// error naming the call site (the -O0 call site's load from the table was followed as if it
// were a spilled local, forever: the compile hung).
// RUN: not %synthase-cc -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O0 -DFORWARD -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=FWD
// CHECK: synthase: in function 'main': __enzyme_autodiff: the first argument is not a function known at compile time
// CHECK: hint: pass the function itself
// FWD: synthase: in function 'main': __enzyme_fwddiff: the first argument is not a function known at compile time
extern double __enzyme_autodiff(void *, ...);
extern double __enzyme_fwddiff(void *, ...);
static double fa(double *v, int n) { double r = 0; for (int i = 0; i < n; i++) r += v[i] * v[i]; return r; }
static double fb(double *v, int n) { (void)n; return v[0] * 3; }
int main(void) {
  double v[5] = {1, 2, 3, 4, 5}, d[5] = {0};
  double (*fs[2])(double *, int) = {fa, fb};
  for (int k = 0; k < 2; k++)
#ifdef FORWARD
    d[k] = __enzyme_fwddiff((void *)fs[k], v, d, 5);
#else
    __enzyme_autodiff((void *)fs[k], v, d, 5);
#endif
  return (int)d[0];
}
