// Vector reverse mode (width > 1) through an indirect call is refused at the user's call, with its
// source line, naming what kind of call it is and what works instead; not in the name of the
// engine's internal trampoline.
// RUN: not %synthase-cc -O0 -g -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O2 -g -c %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: synthase: in function 'f': vector reverse mode (enzyme_width 2) through an indirect call {{.*}}(the call at {{.*}}vector_reverse_indirect.c:[[@LINE+12]]:{{[0-9]+}})
// CHECK-NOT: synthase.indirect
// CHECK: hint: call the reverse mode once per lane (width 1), or use vector forward mode
extern int enzyme_dup, enzyme_width;
double __enzyme_autodiff(void *, ...);
typedef double (*fn)(double);
static double sq(double a) { return a * a; }
static double cube(double a) { return a * a * a; }
fn table[2] = {sq, cube};
double f(double *x) {
  double s = 0;
  for (int i = 0; i < 2; i++)
    s += table[i](x[i]);
  return s;
}
void jacobian_rows(double *x, double *r0, double *r1) {
  __enzyme_autodiff((void *)f, enzyme_width, 2, enzyme_dup, x, r0, r1, 1.0, 2.0);
}
