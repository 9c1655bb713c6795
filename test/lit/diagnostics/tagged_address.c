// Addresses of differentiated memory kept as integers with tag bits in a table, and masked back
// into pointers: neither mode can follow the shadow through the tag, so both refuse with the
// source line instead of returning a zero derivative. Addresses kept in a global integer table,
// which has no shadow, are refused where they are stored.
// RUN: not %synthase-cc -O0 -g -DGLOBAL -DREVERSE -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=GLOBAL
// RUN: not %synthase-cc -O2 -g -DGLOBAL -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=GLOBAL
// GLOBAL: tagged_address.c:[[@LINE+16]]:{{[0-9]+}}: in function 'tagged': a pointer to differentiated memory is stored into memory that has no shadow
// GLOBAL: (the memory: global 'table', which has no shadow)
// RUN: not %synthase-cc -O0 -g -DREVERSE -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O2 -g -DREVERSE -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O0 -g -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O2 -g -c %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: tagged_address.c:[[@LINE+23]]:{{[0-9]+}}: in function 'tagged': a pointer is rebuilt from an integer that holds the address of differentiated memory
// CHECK: hint: keep such addresses as pointers
#include <stdint.h>
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
#ifdef GLOBAL
static uintptr_t table[8];
static double tagged(const double *x, int n) {
  for (int i = 0; i < n; i++)
    table[i] = (uintptr_t)&x[i];
  double s = 0;
  for (int i = 0; i < n; i++)
    s += *(const double *)table[i];
  return s;
}
#else
static double tagged(const double *x, int n) {
  uintptr_t t[8];
  for (int i = 0; i < n; i++)
    t[i] = (uintptr_t)&x[i] | (uintptr_t)(i & 7);
  double s = 0;
  for (int i = 0; i < n; i++) {
    const double *p = (const double *)(t[i] & ~(uintptr_t)7);
    s += p[0] * p[0];
  }
  return s;
}
#endif
int main(void) {
  double x[4] = {1, 2, 3, 4}, dx[4] = {0};
#ifdef REVERSE
  __enzyme_autodiff((void *)tagged, enzyme_dup, x, dx, enzyme_const, 4);
  return (int)dx[0];
#else
  return (int)__enzyme_fwddiff((void *)tagged, enzyme_dup, x, dx, enzyme_const, 4);
#endif
}
