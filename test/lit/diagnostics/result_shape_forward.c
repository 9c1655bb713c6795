// The type declared for __enzyme_fwddiff's result must hold exactly one tangent per lane of
// enzyme_width (after the primal with enzyme_primal_return): width 2 into a 4-lane struct would
// leave two lanes undefined, width 4 into a 2-lane struct would drop two.
// RUN: not %synthase-cc -O0 -DW2_INTO_4 -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=W2
// RUN: not %synthase-cc -O2 -DW2_INTO_4 -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=W2
// RUN: not %synthase-cxx -x c++ -O2 -DW2_INTO_4 -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=W2
// RUN: not %synthase-cc -O0 -DW4_INTO_2 -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=W4
// RUN: not %synthase-cc -O2 -DW4_INTO_2 -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=W4
// RUN: not %synthase-cc -O0 -DFLOAT_LANES -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=FL
// RUN: not %synthase-cc -O0 -DPRIMAL -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRIMAL
// RUN: not %synthase-cc -O0 -DVECTOR -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=VEC
// W2: synthase: in function {{.*}}g{{.*}}: __enzyme_fwddiff: the call produces 2 values: the tangent of lane 0 (double), the tangent of lane 1 (double), laid out as '{ double, double }' but the entry point is declared to return '%struct.T4 = type { [4 x double] }' (through sret)
// W2: hint: {{.*}}typedef struct { double d[2]; } R; R __enzyme_fwddiff(void *, ...);`; or pass enzyme_width equal to the number of lanes the result type holds
// W4: the call produces 4 values: the tangent of lane 0 (double), {{.*}} the tangent of lane 3 (double), laid out as '{ double, double, double, double }' but the entry point is declared to return '{ double, double }'
// FL: the call produces 2 values: {{.*}}(float){{.*}} laid out as '{ float, float }' but the entry point is declared to return '{ <2 x float>, <2 x float> }'
// PRIMAL: the call produces 3 values: the primal (double), the tangent of lane 0 (double), the tangent of lane 1 (double), {{.*}} declared to return '{ double, double }'
// VEC: the call produces 2 values: {{.*}} declared to return '<4 x double>'
#ifdef __cplusplus
extern "C" {
#endif
typedef struct { double d[2]; } T2;
typedef struct { double d[4]; } T4;
typedef struct { float d[4]; } T4f;
typedef double V4 __attribute__((vector_size(32)));
T2 __enzyme_fwddiff_w2(void *, ...);
T4 __enzyme_fwddiff_w4(void *, ...);
T4f __enzyme_fwddiff_w4f(void *, ...);
V4 __enzyme_fwddiff_v4(void *, ...);
extern int enzyme_width, enzyme_const, enzyme_primal_return;
#ifdef __cplusplus
}
#endif

static double f(double x, double y) { return x * y + x; }
static float ff(float x, float y) { return x * y; }

double g(double x, double y) {
#if defined(W2_INTO_4)
  T4 t = __enzyme_fwddiff_w4((void *)f, enzyme_width, 2, x, 1.0, 0.0, enzyme_const, y);
  return t.d[0] + t.d[3];
#elif defined(W4_INTO_2)
  T2 t = __enzyme_fwddiff_w2((void *)f, enzyme_width, 4, x, 1.0, 0.0, 2.0, 3.0, enzyme_const, y);
  return t.d[0] + t.d[1];
#elif defined(FLOAT_LANES)
  T4f t = __enzyme_fwddiff_w4f((void *)ff, enzyme_width, 2, (float)x, 1.0f, 0.0f, enzyme_const, (float)y);
  return t.d[0];
#elif defined(PRIMAL)
  T2 t = __enzyme_fwddiff_w2((void *)f, enzyme_primal_return, enzyme_width, 2, x, 1.0, 0.0, enzyme_const, y);
  return t.d[0];
#elif defined(VECTOR)
  V4 t = __enzyme_fwddiff_v4((void *)f, enzyme_width, 2, x, 1.0, 0.0, enzyme_const, y);
  return t[0];
#endif
}
