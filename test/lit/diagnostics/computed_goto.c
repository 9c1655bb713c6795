// A computed goto (GCC's labels as values, a threaded interpreter) is refused in both modes with
// a diagnostic naming the function; the derivative used to jump to the primal's labels and crash.
// RUN: not %synthase-cc -O0 -g -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O2 -g -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O2 -DFORWARD -c %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: in function 'run': computed goto (an indirect branch to a label address) is not supported
// CHECK-NEXT: instruction: indirectbr
// CHECK-NEXT: hint: dispatch with a switch statement instead
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup;

static const int ops[] = {0, 0, 1, 2};

static double run(const double *x) {
  static void *tbl[] = {&&push, &&mul, &&end};
  double st[4];
  int sp = 0, pc = 0;
  goto *tbl[ops[pc++]];
push:
  st[sp] = x[sp];
  sp++;
  goto *tbl[ops[pc++]];
mul:
  sp--;
  st[sp - 1] *= st[sp];
  goto *tbl[ops[pc++]];
end:
  return st[sp - 1];
}

double g(const double *x, double *dx) {
#ifdef FORWARD
  return __enzyme_fwddiff((void *)run, enzyme_dup, x, dx);
#else
  return __enzyme_autodiff((void *)run, enzyme_dup, x, dx);
#endif
}
