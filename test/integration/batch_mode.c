// Batch mode (__enzyme_batch): the primal run for N lanes of enzyme_vector / enzyme_buffer
// arguments with enzyme_scalar arguments shared, results in lane order. Checked against N plain
// calls; the batched function may itself call __enzyme_fwddiff (checked analytically).
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O0 -I%inputs %s -o %t4 -lm && %t4
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t5 -lm && %t5
#include "check.h"

extern int enzyme_vector, enzyme_scalar, enzyme_buffer;
typedef struct { double x1, x2, x3, x4; } Vec4;
typedef struct { double a, b; } Vec2;
typedef struct { float v[8]; } F8;
#ifdef __cplusplus
extern "C" {
#endif
Vec4 __enzyme_batch(void *, ...);
Vec2 __enzyme_batch2(void *, ...);
F8 __enzyme_batch_f8(void *, ...);
void __enzyme_batch_void(void *, ...);
#ifdef __cplusplus
}
#endif

static double square(double x) { return x * x; }
static double f(double g, double x) { return g * x * x * x; }
static double dfdx(double g, double x) { return __enzyme_fwddiff((void *)f, g, 0.0, x, 1.0); }
static float mix(float a, int k, const float *p) { return a * (float)k + p[0] - p[1]; }

#pragma pack(push, 1)
typedef struct { int arr[3]; double x; float y; double res; } Foo;
#pragma pack(pop)
static void foo(char *p) {
  double x = *(double *)(p + sizeof(int[3]));
  float y = *(float *)(p + sizeof(int[3]) + sizeof(double));
  *(double *)(p + sizeof(int[3]) + sizeof(double) + sizeof(float)) = x * y;
}

typedef struct { double a, b, c; } S3; /* returned through a hidden pointer */
typedef struct { S3 lane[3]; } S3x3;
#ifdef __cplusplus
extern "C"
#endif
S3x3 __enzyme_batch_s3(void *, ...);
static S3 trio(double x, double y) {
  S3 r = {x + y, x * y, sin(x) * y};
  return r;
}

static void scale_row(double *row, double s, int n) {
  for (int i = 0; i < n; i++) row[i] *= s;
}

int main(void) {
  double v[4] = {23.1, 10.0, 100.0, 3.14};
  Vec4 r = __enzyme_batch((void *)square, enzyme_width, 4, enzyme_vector, v[0], v[1], v[2], v[3]);
  CHECK_CLOSE(r.x1, square(v[0]), 1e-15, "square lane 0");
  CHECK_CLOSE(r.x2, square(v[1]), 1e-15, "square lane 1");
  CHECK_CLOSE(r.x3, square(v[2]), 1e-15, "square lane 2");
  CHECK_CLOSE(r.x4, square(v[3]), 1e-15, "square lane 3");

  const double g = 2.0, x0 = 1.0, x1 = 3.0;
  Vec2 p = __enzyme_batch2((void *)f, enzyme_width, 2, enzyme_scalar, g, enzyme_vector, x0, x1);
  Vec2 dv = __enzyme_batch2((void *)dfdx, enzyme_width, 2, enzyme_vector, g, g, enzyme_vector, x0, x1);
  Vec2 ds = __enzyme_batch2((void *)dfdx, enzyme_width, 2, enzyme_scalar, g, enzyme_vector, x0, x1);
  CHECK_CLOSE(p.a, g * x0 * x0 * x0, 1e-15, "scalar g lane 0");
  CHECK_CLOSE(p.b, g * x1 * x1 * x1, 1e-15, "scalar g lane 1");
  CHECK_CLOSE(dv.a, 3 * g * x0 * x0, 1e-14, "batched fwddiff all-vector lane 0");
  CHECK_CLOSE(dv.b, 3 * g * x1 * x1, 1e-14, "batched fwddiff all-vector lane 1");
  CHECK_CLOSE(ds.a, 3 * g * x0 * x0, 1e-14, "batched fwddiff scalar g lane 0");
  CHECK_CLOSE(ds.b, 3 * g * x1 * x1, 1e-14, "batched fwddiff scalar g lane 1");

  /* pointers, no marker: vector by default (Enzyme's char-ptr test) */
  Foo a = {{0}, 10, 9.0f, 0}, b = {{0}, 99.0, 7.0f, 0}, c = {{0}, 1.1, 9.0f, 0}, d = {{0}, 3.14, 0.1f, 0};
  __enzyme_batch_void((void *)foo, enzyme_width, 4, (char *)&a, (char *)&b, (char *)&c, (char *)&d);
  CHECK_CLOSE(a.res, 90.0, 1e-12, "char* lane 0");
  CHECK_CLOSE(b.res, 693.0, 1e-12, "char* lane 1");
  CHECK_CLOSE(c.res, 9.9, 1e-12, "char* lane 2");
  CHECK_CLOSE(d.res, 3.14 * (double)0.1f, 1e-12, "char* lane 3");

  /* enzyme_buffer: lane k works on rows + k * stride; a shared scalar and width 3 */
  double m[3][4] = {{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}};
  __enzyme_batch_void((void *)scale_row, enzyme_width, 3, enzyme_buffer, (long)sizeof m[0], &m[0][0],
                      enzyme_scalar, 0.5, enzyme_scalar, 4);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++) CHECK_CLOSE(m[i][j], 0.5 * (4 * i + j + 1), 1e-15, "buffer row %d col %d", i, j);

  /* a struct result returned through sret: lane k fills the k-th struct of the declared result */
  S3x3 t = __enzyme_batch_s3((void *)trio, enzyme_width, 3, enzyme_vector, 0.5, 1.5, -2.0, enzyme_scalar, 3.0);
  double xs[3] = {0.5, 1.5, -2.0};
  for (int k = 0; k < 3; k++) {
    S3 w = trio(xs[k], 3.0);
    CHECK_CLOSE(t.lane[k].a, w.a, 1e-15, "sret lane %d a", k);
    CHECK_CLOSE(t.lane[k].b, w.b, 1e-15, "sret lane %d b", k);
    CHECK_CLOSE(t.lane[k].c, w.c, 1e-15, "sret lane %d c", k);
  }

  /* float results, width 8, mixed kinds */
  float pts[8][2];
  for (int k = 0; k < 8; k++) { pts[k][0] = 0.25f * k; pts[k][1] = 1.0f - k; }
  F8 q = __enzyme_batch_f8((void *)mix, enzyme_width, 8, enzyme_vector, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0,
                           enzyme_scalar, 3, enzyme_buffer, (long)sizeof pts[0], &pts[0][0]);
  for (int k = 0; k < 8; k++)
    CHECK_CLOSE(q.v[k], mix((float)(k + 1), 3, pts[k]), 1e-7, "float width 8 lane %d", k);
  return check_report();
}
