// Reverse mode of a function returning a struct with several float fields needs the seed of the
// return adjoint: without one, seeding every field with 1 would silently return the gradient of
// the sum of the fields. The hint says how to pass it; with -g the source line is named.
// RUN: not %synthase-cc -O0 -g -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O2 -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOLINE
// RUN: not %synthase-cxx -x c++ -O0 -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOLINE
// RUN: not %synthase-cc -O0 -DFLOATS -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=FLOATS
// A seed that is not of the return type is refused too (one double, or a struct of three).
// RUN: not %synthase-cc -O0 -DSEED_SCALAR -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=WRONG
// RUN: not %synthase-cc -O2 -DSEED_STRUCT3 -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=WRONG
// A struct too large for registers comes back through a hidden sret parameter, which the caller
// must pass itself with its shadow (the seed); the error says so.
// RUN: not %synthase-cc -O0 -DSRET_FN -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=SRETFN
// RUN: not %synthase-cxx -x c++ -O2 -DSRET_FN -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=SRETFN
// CHECK: synthase: {{.*}}struct_return_no_seed.c:[[@LINE+47]]:{{[0-9]+}}: in function 'g': __enzyme_autodiff: 'f' returns '{ double, double }' with 2 floating-point fields, and no seed for the return adjoint was passed
// CHECK-NEXT: instruction: {{.*}}@__enzyme_autodiff
// CHECK-NEXT: hint: pass the seed as a last argument of the return type{{.*}}R seed = {1, 0}
// NOLINE: synthase: in function {{.*}}g{{.*}}: __enzyme_autodiff: '{{.*}}f{{.*}}' returns '{ double, double }' with 2 floating-point fields, and no seed
// NOLINE: hint: pass the seed as a last argument of the return type
// FLOATS: '{ <2 x float>, float }' with 3 floating-point fields, and no seed
// WRONG: __enzyme_autodiff: the seed of the return adjoint (the operands after the last argument of 'f') does not match its return type '{ double, double }'
// WRONG-NEXT: instruction:
// WRONG-NEXT: hint: pass one value of the function's return type
// SRETFN: __enzyme_autodiff: '{{.*}}f3{{.*}}' returns '%struct.S3 = type { double, double, double }' through a hidden sret pointer (its argument 0), and argument 0 here is
// SRETFN: hint: pass the result buffer and its shadow first: enzyme_dup, &out, &d_out, then the arguments
#ifdef __cplusplus
extern "C" {
#endif
#ifdef FLOATS
typedef struct { float a, b, c; } P;
typedef struct { float dx, dy; } G;
#else
typedef struct { double a, b; } P;
typedef struct { double dx, dy; } G;
#endif
G __enzyme_autodiff(void *, ...);
#ifdef __cplusplus
}
#endif

static P f(double x, double y) {
  P r = {x * y, x + y};
  return r;
}

typedef struct { double a, b, c; } S3;

static S3 f3(double x, double y) {
  S3 r = {x, y, x * y};
  return r;
}

G g(double x, double y) {
#if defined(SRET_FN)
  return __enzyme_autodiff((void *)f3, x, y);
#elif defined(SEED_SCALAR)
  return __enzyme_autodiff((void *)f, x, y, 1.0);
#elif defined(SEED_STRUCT3)
  S3 s = {1, 0, 0};
  return __enzyme_autodiff((void *)f, x, y, s);
#else
  return __enzyme_autodiff((void *)f, x, y);
#endif
}
