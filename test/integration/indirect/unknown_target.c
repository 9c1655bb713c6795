// Function pointers to targets without a derivative here abort at run time with a message
// instead of returning a wrong number: a function declared here but defined in another
// translation unit, and a function this unit cannot even name (returned by the other unit).
// A target defined in this unit works as usual.
// RUN: %synthase-cc -O1 -DOTHER -c %s -o %t.other.o
// RUN: %synthase-cc -O0 -I%inputs %s %t.other.o -o %t0 -lm
// RUN: %t0 known
// RUN: not --crash %t0 declared 2>&1 | FileCheck %s --check-prefix=DECLARED
// RUN: not --crash %t0 2>&1 | FileCheck %s --check-prefix=HIDDEN
// RUN: %synthase-cc -O2 -I%inputs %s %t.other.o -o %t2 -lm
// RUN: %t2 known
// RUN: not --crash %t2 declared 2>&1 | FileCheck %s --check-prefix=DECLARED
// RUN: not --crash %t2 2>&1 | FileCheck %s --check-prefix=HIDDEN
// DECLARED: synthase: in 'through': an indirect call reached 'elsewhere', whose derivative could not be generated: {{.*}}cannot differentiate call to external function 'elsewhere'
// HIDDEN: synthase: in 'through': an indirect call on active data reached a function with no derivative in this module
#ifdef OTHER
double elsewhere(double x) { return x * x * x; }
static double hidden(double x) { return x * x * x * x; }
double (*get_hidden(void))(double) { return hidden; }
#else
#include "check.h"
double elsewhere(double x);
double (*get_hidden(void))(double);
static double local_sq(double x) { return x * x; }
double (*volatile local_fn)(double) = local_sq;
double (*volatile declared_fn)(double) = elsewhere;
__attribute__((noinline)) double through(double (*f)(double), double x) { return f(x) * 2; }

int main(int argc, char **argv) {
  double (*f)(double) = argc < 2 ? get_hidden() : argv[1][0] == 'k' ? local_fn : declared_fn;
  double d = __enzyme_autodiff((void *)through, enzyme_const, f, enzyme_out, 1.5);
  CHECK_CLOSE(d, 2 * 2 * 1.5, 1e-12, "known target");
  return check_report();
}
#endif
