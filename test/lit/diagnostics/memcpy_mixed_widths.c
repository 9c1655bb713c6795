// Type deduction through memory: a memcpy of unknown length whose memory the function reads both
// as float and as double cannot be given a derivative layout; reverse mode refuses it instead of
// guessing. (With a constant length each field moves at its own width: struct_copies.c.)
// RUN: not %synthase-cc -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: synthase: {{.*}}in function 'f': cannot deduce the type of the memory this copies
// CHECK: instruction: {{.*}}memcpy
// CHECK: hint:
#include <string.h>
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double f(char *dst, char *src, int n) {
  memcpy(dst, src, n);
  return ((double *)dst)[0] * ((float *)dst)[2];
}
double run(char *a, char *da, char *b, char *db) {
  return __enzyme_autodiff((void *)f, enzyme_dup, a, da, enzyme_dup, b, db, enzyme_const, 16);
}
