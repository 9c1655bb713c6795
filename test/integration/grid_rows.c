// C's shape of a grid whose rows get new blocks one by one (`free(row->data); row->data = nd;`,
// the outer array kept), counted by an integer field that bounds the loop over the rows
// (`struct { Row *rows; long nrows; }`): the caller's values' gradient stayed in the old rows'
// shadows (zeros). The relocation log counts the rows by that field before the call and pairs
// old and new rows by index (libraries/grid_rows.cpp has C++'s and Rust's shapes).
// Reverse mode against central finite differences, forward mode against reverse.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
#include "check.h"
#include <math.h>
#include <stdlib.h>

typedef struct { double *data; long n; } Row;
typedef struct { Row *rows; long nrows; } Grid;

static double step(Grid *g, double s) {
  for (long r = 0; r < g->nrows; r++) {
    Row *row = &g->rows[r];
    double *nd = malloc(row->n * sizeof(double));
    for (long i = 0; i < row->n; i++) nd[i] = sin(row->data[i]) + s * row->data[i];
    free(row->data);
    row->data = nd;
  }
  double t = 0;
  for (long r = 0; r < g->nrows; r++)
    for (long i = 0; i < g->rows[r].n; i++) t += g->rows[r].data[i] * g->rows[r].data[i] * (r + 1);
  return t;
}

static Grid make(double scale, int bump, double h) {
  Grid g = {malloc(3 * sizeof(Row)), 3};
  for (int r = 0; r < 3; r++) {
    g.rows[r].n = 2 + r;
    g.rows[r].data = malloc(g.rows[r].n * sizeof(double));
    for (int i = 0; i < g.rows[r].n; i++) g.rows[r].data[i] = scale * (0.1 + 0.3 * r + 0.2 * i) + (r * 8 + i == bump ? h : 0);
  }
  return g;
}
static void release(Grid g) {
  for (int r = 0; r < 3; r++) free(g.rows[r].data);
  free(g.rows);
}

int main(void) {
  Grid g = make(1, -1, 0), dg = make(0, -1, 0);
  __enzyme_autodiff((void *)step, enzyme_dup, &g, &dg, enzyme_const, 0.5);
  for (int r = 0; r < 3; r++)
    for (int i = 0; i < 2 + r; i++) {
      Grid p = make(1, r * 8 + i, 1e-6), m = make(1, r * 8 + i, -1e-6);
      double fd = (step(&p, 0.5) - step(&m, 0.5)) / 2e-6;
      CHECK_CLOSE(dg.rows[r].data[i], fd, 1e-6, "d[%d][%d]", r, i);
      Grid x = make(1, -1, 0), dx = make(0, r * 8 + i, 1);
      double t = __enzyme_fwddiff((void *)step, enzyme_dup, &x, &dx, enzyme_const, 0.5);
      CHECK_CLOSE(t, dg.rows[r].data[i], 1e-10, "forward vs reverse [%d][%d]", r, i);
      release(p), release(m), release(x), release(dx);
    }
  release(g), release(dg);
  return check_report();
}
