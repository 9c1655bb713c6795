// The return-activity markers (enzyme_const_return, enzyme_active_return, enzyme_dup_return)
// where they make no sense are refused, naming the marker and the fix.
// RUN: not %synthase-cc -O0 -DFWD_ACTIVE -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=FA
// RUN: not %synthase-cc -O0 -DREV_DUP -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=RD
// RUN: not %synthase-cc -O0 -DREV_ACTIVE_INT -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=RI
// RUN: not %synthase-cc -O0 -DLATE -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=LATE
// FA: __enzyme_fwddiff: enzyme_active_return is a reverse-mode marker
// FA: hint: in forward mode the return is enzyme_dup_return
// RD: __enzyme_autodiff: enzyme_dup_return (a duplicated return) is not supported in reverse mode
// RI: __enzyme_autodiff: enzyme_active_return, but 'count' returns 'i32', which is not floating point
// RI: hint: mark the return enzyme_const_return
// LATE: marker 'enzyme_const_return' must come before the first argument
extern int enzyme_const_return, enzyme_active_return, enzyme_dup_return, enzyme_out, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
static double sq(double x) { return x * x; }
static int count(double x) { return (int)x; }
#ifdef FWD_ACTIVE
double use(double x) { return __enzyme_fwddiff((void *)sq, enzyme_active_return, x, 1.0); }
#endif
#ifdef REV_DUP
double use(double x) { return __enzyme_autodiff((void *)sq, enzyme_dup_return, x); }
#endif
#ifdef REV_ACTIVE_INT
double use(double x) { return __enzyme_autodiff((void *)count, enzyme_active_return, x); }
#endif
#ifdef LATE
double use(double x) { return __enzyme_autodiff((void *)sq, enzyme_out, x, enzyme_const_return); }
#endif
