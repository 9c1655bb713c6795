// Activity mismatch: an active value is stored through a pointer passed as enzyme_const (no
// shadow), so its derivative would be lost. Refused in both modes with the function, the store,
// the source line (with -g) and a hint to pass the memory with enzyme_dup.
// RUN: not %synthase-cc -O0 -g -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O2 -g -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O0 -g -DFORWARD -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O2 -g -DFORWARD -c %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: synthase: {{.*}}const_pointer_store.c:[[@LINE+8]]:{{[0-9]+}}: in function 'write_square': an active value is stored into memory that has no shadow, so its derivative would be lost (the memory: argument 2{{.*}}
// CHECK-NEXT: instruction: store double
// CHECK-NEXT: hint: {{.*}}enzyme_dup
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_const, enzyme_out;

static double write_square(double x, double *out) {
  *out = x * x;
  return *out * 2.0;
}

double g(double x, double *o) {
#ifdef FORWARD
  return __enzyme_fwddiff((void *)write_square, x, 1.0, enzyme_const, o);
#else
  return __enzyme_autodiff((void *)write_square, enzyme_out, x, enzyme_const, o);
#endif
}
