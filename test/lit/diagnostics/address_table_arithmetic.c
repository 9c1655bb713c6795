// A table of addresses kept as integers where one entry is made from another by integer
// arithmetic (`t[i] = t[i-1] + 8`) and then read back as a pointer: the entry's shadow cannot
// follow (the table's shadow held garbage: a wrong gradient or a crash, and once integer fields
// were kept in step in shadows, the primal's address in the shadow). Both modes refuse it at the
// store, with its source line. Entries that are a pointer's bits themselves stay supported
// (integration/address_integers.c).
// RUN: not %synthase-cc -O0 -g -DREVERSE -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O2 -g -DREVERSE -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O0 -g -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O2 -g -c %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: address_table_arithmetic.c:[[@LINE+11]]:{{[0-9]+}}: in function 'walk': a pointer is rebuilt from an integer that holds the address of differentiated memory
// CHECK: hint: keep such addresses as pointers
#include <stdint.h>
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
typedef struct { uintptr_t t[8]; } Table;

__attribute__((noinline)) static double walk(Table *tb, double *x, int n) {
  tb->t[0] = (uintptr_t)x;
  for (int i = 1; i < n; i++)
    tb->t[i] = tb->t[i - 1] + sizeof(double);
  double s = 0;
  for (int i = 0; i < n; i++) {
    double v = *(double *)tb->t[i];
    s += v * v * (i + 1);
  }
  return s;
}

int main(void) {
  double x[4] = {1, 2, 3, 4}, dx[4] = {0};
  Table tb, dtb;
#ifdef REVERSE
  __enzyme_autodiff((void *)walk, enzyme_dup, &tb, &dtb, enzyme_dup, x, dx, enzyme_const, 4);
  return (int)dx[0];
#else
  return (int)__enzyme_fwddiff((void *)walk, enzyme_dup, &tb, &dtb, enzyme_dup, x, dx, enzyme_const, 4);
#endif
}
