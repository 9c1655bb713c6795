// Atomic operations on differentiated memory are refused in both modes (never a silently
// dropped derivative): a compare-exchange loop (`_Atomic double +=`) and an atomic store.
// RUN: not %synthase-cc -O0 -DREVERSE -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O2 -DREVERSE -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: synthase: {{.*}}in function '{{f|g}}': atomic memory operations on differentiated data are not supported
// CHECK: hint:
extern int enzyme_dup;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
double f(double *a, double x) { _Atomic double *p = (_Atomic double *)a; *p += x; return x * *a; }
double g(double *a, double x) { double y = x * x; __atomic_store(a, &y, __ATOMIC_SEQ_CST); return 0; }
double run(double *a, double *da) {
#ifdef REVERSE
  return __enzyme_autodiff((void *)f, enzyme_dup, a, da, 3.0);
#else
  return __enzyme_fwddiff((void *)g, enzyme_dup, a, da, 3.0, 1.0);
#endif
}
