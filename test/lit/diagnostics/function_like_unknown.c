// A function-like registration or attribute that names a function without a derivative rule is
// a compile-time error naming it, never a silently differentiated body; so is a function whose
// arguments do not fit the rule, and a malformed registration.
// RUN: not %synthase-cc -O0 -DREG -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REG
// RUN: not %synthase-cc -O2 -DATTR -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=ATTR
// RUN: not %synthase-cc -O0 -DSHAPE -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: not %synthase-cc -O0 -DNOTFN -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOTFN
// RUN: not %synthase-cc -O0 -DNOARG -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOARG
// REG: synthase: '__enzyme_function_like' is malformed: 'log1q' has no derivative rule in Synthase's table
// REG-NOT: is malformed
// ATTR: synthase: in function 'my_log1p': enzyme_function_like("log_one_plus") on 'my_log1p' cannot be used: 'log_one_plus' has no derivative rule
// SHAPE: synthase: '__enzyme_function_like' is malformed: 'count' does not have the shape of 'log1p'
// NOTFN: synthase: '__enzyme_inactivefn' is malformed: an entry is not a function
// NOARG: error: 'enzyme_function_like' takes one string: the name of a function Synthase has a derivative rule for
#include <math.h>
double __enzyme_autodiff(void *, ...);
#ifdef ATTR
__attribute__((enzyme_function_like("log_one_plus")))
#endif
#ifdef NOARG
__attribute__((enzyme_function_like(3)))
#endif
double my_log1p(double x) { return log(1 + x); }
int count(int n) { return n + 1; }
double table[2];
#ifdef REG
void *__enzyme_function_like[2] = {(void *)my_log1p, (void *)"log1q"};
#endif
#ifdef SHAPE
void *__enzyme_function_like[2] = {(void *)count, (void *)"log1p"};
#endif
#ifdef NOTFN
void *__enzyme_inactivefn[] = {(void *)&table};
#endif
double f(double x) { return my_log1p(x) + count(2); }
double df(double x) { return __enzyme_autodiff((void *)f, x); }
