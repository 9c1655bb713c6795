// A shadow whose element type visibly differs from its primal's is refused: `float g[2]` as the
// shadow of memory the function reads as double would take 16 bytes of derivatives into 8. The
// primal's type comes from the function's own loads and stores through the parameter (also when
// the primal is heap memory), else from the object it points to; the shadow's from its object
// (a local or global array).
// RUN: not %synthase-cc -O0 -g -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O2 -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=ANY
// RUN: not %synthase-cxx -x c++ -O0 -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=ANY
// RUN: not %synthase-cc -O0 -DFORWARD -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=FWD
// RUN: not %synthase-cc -O2 -DGLOBAL -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=GLOBAL
// RUN: not %synthase-cc -O0 -DHEAP -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=HEAP
// RUN: not %synthase-cc -O0 -DOPAQUE -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=OPAQUE
// RUN: not %synthase-cc -O0 -DLANE -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=LANE
// CHECK: synthase: {{.*}}shadow_element_type.c:[[@LINE+52]]:{{[0-9]+}}: in function 'g': __enzyme_autodiff: the shadow of argument 0 of 'f' points to memory of element type float, but the function reads or writes it as double
// CHECK-NEXT: instruction:
// CHECK-NEXT: hint: a shadow must have the primal's layout
// ANY: __enzyme_autodiff: the shadow of argument 0 of '{{.*}}f{{.*}}' points to memory of element type float, but the function reads or writes it as double
// FWD: __enzyme_fwddiff: the shadow of argument 0 of 'f' points to memory of element type float, but the function reads or writes it as double
// GLOBAL: the shadow of argument 0 of 'f' points to memory of element type float, but the function
// HEAP: the shadow of argument 0 of 'f' points to memory of element type float, but the function reads or writes it as double
// OPAQUE: the shadow of argument 0 of 'h' points to memory of element type float, but the primal points to memory of type double
// LANE: __enzyme_fwddiff: the shadow of argument 0 of 'f' (lane 1) points to memory of element type float
#include <stdlib.h>
#ifdef __cplusplus
extern "C" {
#endif
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
typedef struct { double d[2]; } T2;
T2 __enzyme_fwddiff_w2(void *, ...);
extern int enzyme_dup, enzyme_width, enzyme_const;
#ifdef __cplusplus
}
#endif

static double f(double *p) { return p[0] * p[0]; }

/* The function does nothing with its pointer itself: only the primal's object types it. */
void sink(double *);
static double h(double *p, double x) {
  sink(p);
  return x;
}

float gshadow[2];

double g(double x) {
  double p[1] = {x};
  float dp[2] = {0, 0};
#if defined(FORWARD)
  return __enzyme_fwddiff((void *)f, enzyme_dup, p, dp);
#elif defined(GLOBAL)
  return __enzyme_autodiff((void *)f, enzyme_dup, p, gshadow);
#elif defined(HEAP)
  double *q = (double *)malloc(sizeof(double));
  *q = x;
  double r = __enzyme_autodiff((void *)f, enzyme_dup, q, dp);
  free(q);
  return r;
#elif defined(OPAQUE)
  return __enzyme_autodiff((void *)h, enzyme_dup, p, dp, x);
#elif defined(LANE)
  double d0[1] = {1};
  return __enzyme_fwddiff_w2((void *)f, enzyme_width, 2, enzyme_dup, p, d0, dp).d[1];
#else
  return __enzyme_autodiff((void *)f, enzyme_dup, p, dp);
#endif
}
