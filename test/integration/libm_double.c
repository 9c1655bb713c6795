// Every C math library function in double: reverse and forward mode against closed-form
// derivatives (computed in long double) and central differences.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
#define REAL double
#define M(fn) fn
#define TOL0 1e-13
#define TOL1 1e-13
#define HAVE_FD_REF 1
#include "check.h"
typedef struct { double dx, dy; } AD2T;
AD2T __enzyme_autodiff_pair(void *, ...);
#define AD1(f, x) __enzyme_autodiff(f, x)
#define FWD1(f, x, dx) __enzyme_fwddiff(f, x, dx)
#define AD2(f, x, y) __enzyme_autodiff_pair(f, x, y)
#define ADCY(f, x, y) __enzyme_autodiff(f, enzyme_out, x, enzyme_const, y)
#define FWD2(f, x, dx, y, dy) __enzyme_fwddiff(f, enzyme_dup, x, dx, enzyme_dup, y, dy)
#include "libm_driver.h"
