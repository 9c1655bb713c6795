// Copies of structs that mix float widths (struct {double x; float m;}, with an int field and
// padding): struct assignment, memcpy of a constant and of a run-time number of elements, through
// a local array that SROA splits. Each field's adjoint moves at its own width; the padding and the
// int field are not float data. Both modes, against analytic derivatives.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O0 -I%inputs %s -o %t4 -lm && %t4
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t5 -lm && %t5
#include "check.h"
typedef struct { double x; float m; } S;
typedef struct { float m; double x; float k; } T;
#define N 5
static double f(S *a, const S *b, T *t) {
  S tmp[N];
  for (int i = 0; i < N; i++) tmp[i] = b[i];           /* struct assignment */
  memcpy(a, tmp, sizeof(S) * N);                       /* memcpy of an array of them */
  T u = t[1];
  t[0] = u;
  double s = 0;
  for (int i = 0; i < N; i++) s += a[i].x * a[i].m + sin(a[i].x) * a[i].m * a[i].m;
  return s + t[0].m * t[0].x * t[0].k;
}
/* runtime sizes: the copies stay memcpy (whole elements) or typed field moves */
typedef struct { double x; int id; float m; } R;
static double g(R *a, const R *b, int n) {
  R *tmp = (R *)malloc(sizeof(R) * n);
  memcpy(tmp, b, sizeof(R) * n);
  for (int i = 0; i < n; i++) a[n - 1 - i] = tmp[i];
  free(tmp);
  double s = 0;
  for (int i = 0; i < n; i++) s += a[i].x * a[i].m * (a[i].id + 1);
  return s;
}
int main(void) {
  S a[N], b[N], da[N], db[N];
  T t[2] = {{1.5f, 2.0, 0.5f}, {2.5f, -1.0, 3.0f}}, dt[2];
  for (int i = 0; i < N; i++) { b[i].x = 0.3 * i + 0.1; b[i].m = 1.0f + 0.5f * i; }
  memset(da, 0, sizeof da); memset(db, 0, sizeof db); memset(dt, 0, sizeof dt);
  __enzyme_autodiff((void *)f, a, da, b, db, t, dt);
  for (int i = 0; i < N; i++) {
    double x = b[i].x, m = b[i].m;
    CHECK_CLOSE(db[i].x, m + cos(x) * m * m, 1e-6, "reverse d/db[%d].x", i);
    CHECK_CLOSE(db[i].m, x + 2 * sin(x) * m, 1e-6, "reverse d/db[%d].m", i);
    S v[N], z[N]; T tz[2];
    memset(v, 0, sizeof v); memset(z, 0, sizeof z); memset(tz, 0, sizeof tz);
    T t2[2] = {{1.5f, 2.0, 0.5f}, {2.5f, -1.0, 3.0f}};
    v[i].x = 1;
    double fx = __enzyme_fwddiff((void *)f, a, z, b, v, t2, tz);
    CHECK_CLOSE(fx, db[i].x, 1e-6, "forward d/db[%d].x", i);
    memset(v, 0, sizeof v); memset(z, 0, sizeof z); memset(tz, 0, sizeof tz);
    v[i].m = 1;
    T t3[2] = {{1.5f, 2.0, 0.5f}, {2.5f, -1.0, 3.0f}};
    double fm = __enzyme_fwddiff((void *)f, a, z, b, v, t3, tz);
    CHECK_CLOSE(fm, db[i].m, 1e-6, "forward d/db[%d].m", i);
  }
  CHECK_CLOSE(dt[1].m, 3.0 * -1.0, 1e-6, "t[1].m");
  CHECK_CLOSE(dt[1].x, 2.5 * 3.0, 1e-6, "t[1].x");
  CHECK_CLOSE(dt[1].k, 2.5 * -1.0, 1e-6, "t[1].k");
  R ra[N], rb[N], dra[N], drb[N];
  memset(dra, 0, sizeof dra); memset(drb, 0, sizeof drb);
  for (int i = 0; i < N; i++) { rb[i].x = 0.5 + i; rb[i].id = i; rb[i].m = 2.0f - 0.25f * i; }
  __enzyme_autodiff((void *)g, ra, dra, rb, drb, enzyme_const, N);
  for (int i = 0; i < N; i++) {
    CHECK_CLOSE(drb[i].x, rb[i].m * (i + 1), 1e-6, "runtime copy reverse d/rb[%d].x", i);
    CHECK_CLOSE(drb[i].m, rb[i].x * (i + 1), 1e-6, "runtime copy reverse d/rb[%d].m", i);
    R v[N], z[N], out[N];
    memset(v, 0, sizeof v); memset(z, 0, sizeof z);
    v[i].m = 1;
    double t = __enzyme_fwddiff((void *)g, out, z, rb, v, enzyme_const, N);
    CHECK_CLOSE(t, drb[i].m, 1e-6, "runtime copy forward d/rb[%d].m", i);
  }
  return check_report();
}
