// Float bits changed by integer arithmetic and put back as float data (here: a double's
// exponent bumped through uint64_t, read and written through memory) cannot be differentiated:
// both modes refuse the function, naming the load that brings the bits in, instead of giving a
// silent zero as they did. Sign-bit masks are differentiated (integration/sign_bit_ops.c).
// RUN: not %synthase-cc -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O2 -DFORWARD -c %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: in function 'twice': float bits changed by integer arithmetic are stored as float data
// CHECK-NEXT: instruction: {{.*}}load i64
// CHECK-NEXT: hint: reinterpreting float bits is not differentiable
#include <stdint.h>
#include <string.h>
extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);

// out[i] = 2 * a[i], by adding one to the exponent.
static void twice(const double *a, double *out, int n) {
  for (int i = 0; i < n; i++) {
    uint64_t u;
    memcpy(&u, &a[i], 8);
    u += 1ull << 52;
    memcpy(&out[i], &u, 8);
  }
  out[0] += a[0] * a[0];
}

void g(const double *a, double *da, double *out, double *dout, int n) {
#ifdef FORWARD
  __enzyme_fwddiff((void *)twice, enzyme_dup, a, da, enzyme_dup, out, dout, n);
#else
  __enzyme_autodiff((void *)twice, enzyme_dup, a, da, enzyme_dup, out, dout, n);
#endif
}
