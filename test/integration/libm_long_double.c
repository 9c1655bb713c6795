// Every C math library function in long double (sinl, ...; x86_fp80): reverse and forward mode
// against closed-form derivatives in long double, at long double precision (a rule evaluated in
// double would miss the tolerance).
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
#define REAL long double
#define M(fn) fn##l
#define M_R(fn) fn##l_r
#define TOL0 1e-17
#define TOL1 1e-16
#define HAVE_FD_REF 0
#include "check.h"
typedef struct { long double dx, dy; } AD2T;
long double __enzyme_autodiffl(void *, ...);
long double __enzyme_fwddiffl(void *, ...);
AD2T __enzyme_autodiffl2(void *, ...);
#define AD1(f, x) __enzyme_autodiffl(f, x)
#define FWD1(f, x, dx) __enzyme_fwddiffl(f, x, dx)
#define AD2(f, x, y) __enzyme_autodiffl2(f, x, y)
#define ADCY(f, x, y) __enzyme_autodiffl(f, enzyme_out, x, enzyme_const, y)
#define FWD2(f, x, dx, y, dy) __enzyme_fwddiffl(f, x, dx, y, dy)
#include "libm_driver.h"
