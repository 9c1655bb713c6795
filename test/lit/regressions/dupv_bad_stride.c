// Found by the libFuzzer target over call-site lowering (issue 8): the operand after
// enzyme_dupv / enzyme_dupnoneedv (the byte stride) is sign-extended without checking it is an
// integer. A double stride gives invalid IR ("internal error: the module does not verify after
// AD": mul double 16.0, i64 1; GEP indexes must be integers); a metadata marker there (rustc
// convention) gives `sext metadata` (the fuzzer's invalid module); a C marker there (enzyme_const
// where the stride should be) is silently taken as the stride. Expected: a diagnostic that the
// stride must be an integer, for each.
// RUN: not %synthase-cc -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O0 -DMARKER_STRIDE -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O2 -DMARKER_STRIDE -c %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: synthase:
// CHECK-SAME: in function 'g'
// CHECK-SAME: stride
// CHECK-NOT: internal error
typedef struct { double d[2]; } T2;
T2 __enzyme_fwddiff(void *, ...);
extern int enzyme_width, enzyme_dupv, enzyme_const;

static double f(const double *p, int n) { return p[0] * p[n - 1]; }

T2 g(double *p, double *dp, int n) {
#ifdef MARKER_STRIDE
  return __enzyme_fwddiff((void *)f, enzyme_width, 2, enzyme_dupv, enzyme_const, p, dp, enzyme_const, n);
#else
  return __enzyme_fwddiff((void *)f, enzyme_width, 2, enzyme_dupv, 16.0, p, dp, enzyme_const, n);
#endif
}
