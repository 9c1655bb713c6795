// Vector (batched) forward mode: enzyme_width 2 and 4, scalar arguments with N separate
// tangents, pointer arguments with N separate shadows and with one strided buffer (enzyme_dupv,
// stride in bytes, including a stride larger than the data), return of N tangents as a struct
// (two doubles in registers, four through sret memory). Every lane must equal a scalar
// forward run along that lane's direction.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -x c++ -O0 -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
#include "check.h"

typedef struct { double d[2]; } T2;
typedef struct { double d[4]; } T4;
typedef struct { float d[4]; } T4f;
T2 __enzyme_fwddiff_w2(void *, ...);
T4 __enzyme_fwddiff_w4(void *, ...);
T4f __enzyme_fwddiff_w4f(void *, ...);

#define N 5

static double scal(double x, double y) { return sin(x * y) + x * x * exp(-y) + log(1 + y * y); }
static float scalf(float x, float y) { return sinf(x * y) + x * x; }

static double loss(const double *x, double a, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += tanh(a * x[i]) * x[(i + 1) % n];
  return s;
}

/* output array: shadows receive N tangent arrays */
static void outmap(const double *x, double *y, int n) {
  for (int i = 0; i < n; ++i)
    y[i] = x[i] * x[(i + 2) % n] + cos(x[i]);
}

int main(void) {
  check_seed(59);
  for (int t = 0; t < 5; ++t) {
    double x = check_uniform(-1, 1), y = check_uniform(-1, 1);
    double dx[4], dy[4];
    check_fill(dx, 4, -1, 1);
    check_fill(dy, 4, -1, 1);
    double lane[4];
    for (int l = 0; l < 4; ++l)
      lane[l] = __enzyme_fwddiff((void *)scal, x, dx[l], y, dy[l]);

    T2 r2 = __enzyme_fwddiff_w2((void *)scal, enzyme_width, 2, x, dx[0], dx[1], y, dy[0], dy[1]);
    for (int l = 0; l < 2; ++l)
      CHECK_CLOSE(r2.d[l], lane[l], 1e-15, "width 2 scalar lane %d", l);
    T4 r4 = __enzyme_fwddiff_w4((void *)scal, enzyme_width, 4, enzyme_dup, x, dx[0], dx[1], dx[2], dx[3],
                                enzyme_dup, y, dy[0], dy[1], dy[2], dy[3]);
    for (int l = 0; l < 4; ++l)
      CHECK_CLOSE(r4.d[l], lane[l], 1e-15, "width 4 scalar lane %d", l);
    /* y const */
    T2 rc = __enzyme_fwddiff_w2((void *)scal, enzyme_width, 2, x, dx[0], dx[1], enzyme_const, y);
    for (int l = 0; l < 2; ++l)
      CHECK_CLOSE(rc.d[l], __enzyme_fwddiff((void *)scal, x, dx[l], enzyme_const, y), 1e-15,
                  "width 2 const y lane %d", l);
    /* float, width 4 */
    float fx = (float)x, fy = (float)y;
    T4f r4f = __enzyme_fwddiff_w4f((void *)scalf, enzyme_width, 4, fx, 1.0f, 0.0f, 0.5f, -1.0f, fy, 0.0f,
                                   1.0f, 0.5f, 2.0f);
    float fdx[4] = {1, 0, 0.5f, -1}, fdy[4] = {0, 1, 0.5f, 2};
    for (int l = 0; l < 4; ++l) {
      double want = cos((double)fx * fy) * (fdx[l] * (double)fy + fdy[l] * (double)fx) + 2.0 * fx * fdx[l];
      CHECK_CLOSE(r4f.d[l], want, 2e-6, "width 4 float lane %d", l);
    }

    /* pointer args: separate shadows */
    double v[N], s0[N], s1[N], s2[N], s3[N];
    check_fill(v, N, -1, 1);
    check_fill(s0, N, -1, 1);
    check_fill(s1, N, -1, 1);
    check_fill(s2, N, -1, 1);
    check_fill(s3, N, -1, 1);
    double a = check_uniform(0.5, 1.5), da[4];
    check_fill(da, 4, -1, 1);
    double *sh[4] = {s0, s1, s2, s3};
    double scalar_lane[4];
    for (int l = 0; l < 4; ++l)
      scalar_lane[l] = __enzyme_fwddiff((void *)loss, v, sh[l], a, da[l], N);
    T4 p4 = __enzyme_fwddiff_w4((void *)loss, enzyme_width, 4, v, s0, s1, s2, s3, a, da[0], da[1], da[2], da[3],
                                enzyme_const, N);
    for (int l = 0; l < 4; ++l)
      CHECK_CLOSE(p4.d[l], scalar_lane[l], 1e-15, "width 4 pointer lane %d", l);

    /* enzyme_dupv: one buffer, lanes stride bytes apart (stride = N doubles, then 8 doubles) */
    double buf[4 * 8];
    for (int l = 0; l < 4; ++l)
      memcpy(buf + l * N, sh[l], sizeof(double) * N);
    T4 v4 = __enzyme_fwddiff_w4((void *)loss, enzyme_width, 4, enzyme_dupv, (long)(sizeof(double) * N), v, buf,
                                a, da[0], da[1], da[2], da[3], enzyme_const, N);
    for (int l = 0; l < 4; ++l)
      CHECK_CLOSE(v4.d[l], scalar_lane[l], 1e-15, "width 4 dupv stride %d lane %d", N, l);
    double buf8[4 * 8];
    for (int i = 0; i < 32; ++i)
      buf8[i] = 1e300; /* padding between lanes must not be read */
    for (int l = 0; l < 4; ++l)
      memcpy(buf8 + l * 8, sh[l], sizeof(double) * N);
    T2 v2 = __enzyme_fwddiff_w2((void *)loss, enzyme_width, 2, enzyme_dupv, (long)(sizeof(double) * 8), v, buf8,
                                a, da[0], da[1], enzyme_const, N);
    for (int l = 0; l < 2; ++l)
      CHECK_CLOSE(v2.d[l], scalar_lane[l], 1e-15, "width 2 dupv stride 8 lane %d", l);

    /* output array shadows: separate and strided */
    double yv[N], o0[N], o1[N], ob[2 * N], ref0[N], ref1[N];
    __enzyme_fwddiff((void *)outmap, v, s0, yv, ref0, N);
    __enzyme_fwddiff((void *)outmap, v, s1, yv, ref1, N);
    __enzyme_fwddiff_w2((void *)outmap, enzyme_width, 2, v, s0, s1, yv, o0, o1, N);
    for (int i = 0; i < N; ++i) {
      CHECK_CLOSE(o0[i], ref0[i], 1e-15, "width 2 output lane 0 [%d]", i);
      CHECK_CLOSE(o1[i], ref1[i], 1e-15, "width 2 output lane 1 [%d]", i);
    }
    double ib[2 * N];
    memcpy(ib, s0, sizeof s0);
    memcpy(ib + N, s1, sizeof s1);
    __enzyme_fwddiff_w2((void *)outmap, enzyme_width, 2, enzyme_dupv, (long)sizeof(double) * N, v, ib,
                        enzyme_dupv, (long)sizeof(double) * N, yv, ob, N);
    for (int i = 0; i < N; ++i) {
      CHECK_CLOSE(ob[i], ref0[i], 1e-15, "width 2 dupv output lane 0 [%d]", i);
      CHECK_CLOSE(ob[N + i], ref1[i], 1e-15, "width 2 dupv output lane 1 [%d]", i);
    }
  }
  return check_report();
}
