// The type declared for __enzyme_autodiff's result must hold exactly the adjoints the call
// returns (one per enzyme_out argument, after the primal with enzyme_primal_return). More
// enzyme_out arguments than it holds would drop adjoints, fewer would leave fields undefined.
// RUN: not %synthase-cc -O0 -DMORE -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=MORE
// RUN: not %synthase-cc -O2 -DMORE -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=MORE
// RUN: not %synthase-cxx -x c++ -O0 -DMORE -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=MORE
// RUN: not %synthase-cc -O0 -DFEWER -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=FEWER
// RUN: not %synthase-cc -O2 -DSRET -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=SRET
// RUN: not %synthase-cc -O0 -DSCALAR -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=SCALAR
// A `void` entry point drops what the call produces, as Enzyme does (its own tests rely on it).
// RUN: %synthase-cc -O0 -DVOID -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=VOID --allow-empty
// RUN: not %synthase-cc -O0 -DPRIMAL -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRIMAL
// RUN: not %synthase-cc -O0 -DMIXED -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=MIXED
// RUN: not %synthase-cc -O0 -DFLOATS_IN_DOUBLE -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=FD
// RUN: not %synthase-cc -O2 -DFLOATS_IN_DOUBLE -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=FD
// MORE: synthase: in function {{.*}}g{{.*}}: __enzyme_autodiff: the call produces 3 values: the adjoint of argument 0 (double), the adjoint of argument 1 (double), the adjoint of argument 2 (double), laid out as '{ double, double, double }' but the entry point is declared to return '{ double, double }'
// MORE-NEXT: instruction:
// MORE-NEXT: hint: declare the entry point's result with exactly these values in this order {{.*}}typedef struct { double d[3]; } R; R __enzyme_autodiff(void *, ...);{{.*}}enzyme_const
// FEWER: the call produces 2 values: the adjoint of argument 0 (double), the adjoint of argument 2 (double), laid out as '{ double, double }' but the entry point is declared to return '%struct.G3 = type { double, double, double }' (through sret)
// SRET: the call produces 4 values: {{.*}} but the entry point is declared to return '%struct.G3 = type { double, double, double }' (through sret)
// SCALAR: the call produces 2 values: {{.*}} but the entry point is declared to return 'double'
// VOID-NOT: error
// PRIMAL: the call produces 3 values: the primal (double), the adjoint of argument 0 (double), the adjoint of argument 1 (double), laid out as '{ double, double, double }' but the entry point is declared to return '{ double, double }'
// MIXED: the call produces 2 values: the adjoint of argument 0 (double), the adjoint of argument 1 (float), laid out as '{ double, float }' but the entry point is declared to return '{ float, double }'
// FD: the call produces 2 values: the adjoint of argument 0 (float), the adjoint of argument 1 (float), laid out as '{ float, float }' but the entry point is declared to return 'double'
#ifdef __cplusplus
extern "C" {
#endif
typedef struct { double dx, dy; } G2;
typedef struct { double da, db, dc; } G3;
typedef struct { float dx; double dy; } Gfd;
G2 __enzyme_autodiff_2(void *, ...);
G3 __enzyme_autodiff_3(void *, ...);
Gfd __enzyme_autodiff_fd(void *, ...);
double __enzyme_autodiff(void *, ...);
void __enzyme_autodiff_void(void *, ...);
extern int enzyme_const, enzyme_out, enzyme_primal_return;
#ifdef __cplusplus
}
#endif

static double f3(double a, double b, double c) { return a * b * c; }
static double f4(double a, double b, double c, double d) { return a * b * c * d; }
static double fmix(double a, float b) { return a * b; }
static float ff(float a, float b) { return a * b; }

double g(double a, double b, double c) {
#if defined(MORE)
  G2 r = __enzyme_autodiff_2((void *)f3, a, b, c); /* three adjoints into two fields */
  return r.dx + r.dy;
#elif defined(FEWER)
  G3 r = __enzyme_autodiff_3((void *)f3, a, enzyme_const, b, c); /* two adjoints, three fields */
  return r.da + r.db + r.dc;
#elif defined(SRET)
  G3 r = __enzyme_autodiff_3((void *)f4, a, b, c, a); /* four adjoints, three fields (sret) */
  return r.da;
#elif defined(SCALAR)
  return __enzyme_autodiff((void *)f3, a, b, enzyme_const, c); /* two adjoints into a double */
#elif defined(VOID)
  __enzyme_autodiff_void((void *)f3, a, enzyme_const, b, enzyme_const, c); /* adjoint dropped */
  return 0;
#elif defined(PRIMAL)
  G2 r = __enzyme_autodiff_2((void *)f3, enzyme_primal_return, a, b, enzyme_const, c);
  return r.dx;
#elif defined(MIXED)
  Gfd r = __enzyme_autodiff_fd((void *)fmix, a, (float)b); /* {double, float} read as {float, double} */
  return r.dx + r.dy;
#elif defined(FLOATS_IN_DOUBLE)
  double d = __enzyme_autodiff((void *)ff, (float)a, (float)b); /* two float adjoints, one double */
  return d;
#endif
}
