// A shuffle of integer lanes that splits the doubles whose bits they carry (here swapping the
// halves of each double) is not a move of floats: refused in both modes, never a silent number.
// REQUIRES: x86_64
// RUN: not %synthase-cc -O0 -DREVERSE -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REV
// RUN: not %synthase-cc -O2 -DREVERSE -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REV
// RUN: not %synthase-cc -O0 -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=FWD
// RUN: not %synthase-cc -O2 -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=FWD
// REV: error: synthase: in function 'split': a shuffle of integer lanes splits the floats whose bits they hold
// REV: hint: shuffle the floats as floating-point vectors
// FWD: error: synthase: in function 'split': a shuffle of integer lanes splits the floats whose bits they hold
// FWD: hint: shuffle the floats as floating-point vectors
#include <emmintrin.h>
extern int enzyme_dup;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

double split(const double *a) {
  double r[2];
  _mm_storeu_pd(r, _mm_castsi128_pd(_mm_shuffle_epi32(_mm_castpd_si128(_mm_loadu_pd(a)), 0xB1)));
  return r[0];
}
double run(double *a, double *d) {
#ifdef REVERSE
  return __enzyme_autodiff((void *)split, enzyme_dup, a, d);
#else
  return __enzyme_fwddiff((void *)split, enzyme_dup, a, d);
#endif
}
