// A small struct of floats passed by value to Enzyme's variadic entry points is split by the C
// calling convention into two scalar arguments, and the pass would pair tangents (or shadows and
// activities) with the wrong fields: a silently wrong derivative. The front-end plugin refuses it
// at the argument. Reverse mode with active fields (enzyme_out, or no marker) keeps one value per
// scalar and stays allowed: that build runs and checks its gradient.
// RUN: not %synthase-cc -O0 -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=FWD
// RUN: not %synthase-cc -O2 -DDUP -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=DUP
// RUN: %synthase-cc -O2 -DOUT %s -o %t -lm && %t
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_out;
double __enzyme_fwddiff(void *, ...);
typedef struct { double x, y; } V2;
typedef struct { V2 da, db; } G22;
G22 __enzyme_autodiff(void *, ...);

static double cross(V2 a, V2 b) { return a.x * b.y - a.y * b.x; }

int main(void) {
  V2 a = {0.3, -0.7}, b = {1.1, 0.4}, ta = {1, 2}, tb = {-1, 0.5};
  (void)ta, (void)tb;
#if !defined(DUP) && !defined(OUT)
  // FWD: by_value_struct.c:[[@LINE+1]]:{{[0-9]+}}: error: 'V2' passed by value to __enzyme_fwddiff: the C calling convention splits it into two scalar arguments, so its fields would be paired with the wrong tangents
  double t = __enzyme_fwddiff((void *)cross, a, ta, b, tb);
  // FWD-NOT: error:
  return t != 0;
#elif defined(DUP)
  // DUP: by_value_struct.c:[[@LINE+1]]:{{[0-9]+}}: error: 'V2' passed by value to __enzyme_autodiff: {{.*}} paired with the wrong shadows or activities
  G22 g = __enzyme_autodiff((void *)cross, enzyme_dup, a, ta, enzyme_out, b);
  return g.da.x != 0;
#else
  G22 g = __enzyme_autodiff((void *)cross, enzyme_out, a, b);
  // d/da = (b.y, -b.x), d/db = (-a.y, a.x)
  int bad = fabs(g.da.x - b.y) > 1e-15 || fabs(g.da.y + b.x) > 1e-15 || fabs(g.db.x + a.y) > 1e-15 ||
            fabs(g.db.y - a.x) > 1e-15;
  if (bad)
    printf("wrong gradient: %g %g %g %g\n", g.da.x, g.da.y, g.db.x, g.db.y);
  return bad;
#endif
}
