// An rsqrt/rcp approximation used as it is (no Newton step) has the derivative of a 12-bit
// approximation: refused with a hint, in both modes. An x86 intrinsic without a rule names itself.
// REQUIRES: x86_64
// RUN: not %synthase-cc -O0 -mavx2 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O2 -mavx2 -c %s -o /dev/null 2>&1 | FileCheck %s
// CHECK-DAG: error: synthase: in function 'rsqrt_raw': the approximation llvm.x86.sse.rsqrt.ps is used without a Newton refinement step
// CHECK-DAG: hint: its derivative would be that of a 12-bit approximation
// CHECK-DAG: error: synthase: in function 'rcp_raw': the approximation llvm.x86.sse.rcp.ps is used without a Newton refinement step
// CHECK-DAG: error: synthase: in function 'permvar': no derivative rule for the x86 target intrinsic llvm.x86.avx.vpermilvar.ps
#include <immintrin.h>
extern int enzyme_dup;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

float rsqrt_raw(const float *x) {
  float o[4];
  _mm_storeu_ps(o, _mm_rsqrt_ps(_mm_loadu_ps(x)));
  return o[0];
}
float rcp_raw(const float *x) {
  float o[4];
  _mm_storeu_ps(o, _mm_rcp_ps(_mm_loadu_ps(x)));
  return o[0];
}
float permvar(const float *x) {
  float o[4];
  _mm_storeu_ps(o, _mm_permutevar_ps(_mm_loadu_ps(x), _mm_set_epi32(0, 1, 2, 3)));
  return o[0];
}
void grad(float *x, float *dx) {
  __enzyme_autodiff((void *)rsqrt_raw, enzyme_dup, x, dx);
  __enzyme_fwddiff((void *)rcp_raw, enzyme_dup, x, dx);
  __enzyme_autodiff((void *)permvar, enzyme_dup, x, dx);
}
