// A workspace struct in a global whose buffer pointer is assigned at run time to something other
// than a whole heap block (here: one element into it) has no shadow for that pointer: the
// derivative would lose what goes through the buffer, so the store is refused, naming the global
// and saying what does work, not the enzyme_const hint meant for constant memory. With a double
// next to the pointer the global has a shadow, whose copy of the pointer is null: before, the
// derivative wrote through it and crashed; now the store is refused the same way. (A whole heap
// block works: integration/global_workspace_struct.c.)
// RUN: not %synthase-cc -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O0 -DWITH_FLOAT -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O2 -DWITH_FLOAT -c %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: synthase: in function 'f': an active value is stored into memory that has no shadow{{.*}}a pointer loaded from memory that has no shadow
// CHECK: hint: global 'ws' holds a pointer assigned at run time inside an aggregate{{.*}}pass the buffer in with enzyme_dup
#include <stdlib.h>
extern int enzyme_dup;
double __enzyme_autodiff(void *, ...);
struct workspace {
  double *buf;
#ifdef WITH_FLOAT
  double scale;
#endif
  int n;
};
static struct workspace ws;
void ws_init(int n) {
  ws.buf = (double *)malloc((n + 1) * sizeof(double)) + 1;
  ws.n = n;
}
double f(const double *x) {
  for (int i = 0; i < ws.n; i++)
    ws.buf[i] = x[i] * x[i];
  double s = 0;
  for (int i = 0; i < ws.n; i++)
    s += ws.buf[i] * x[(i + 1) % ws.n];
  return s;
}
void grad(const double *x, double *dx) { __enzyme_autodiff((void *)f, enzyme_dup, x, dx); }
