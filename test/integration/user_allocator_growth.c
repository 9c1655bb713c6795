// A caller's buffer moved into a block of a user allocator registered with
// __enzyme_allocation_like (one freed by name, one by an index list with an extra argument), its
// old block freed with the user's deallocator: the gradient of the values passed lands in the
// caller's grown shadow (the relocation log notes user-freed blocks by their start, having no size
// to ask). Before, the note was skipped for user deallocators and the gradient came back 0.
// Reverse mode against the analytic gradient, forward against reverse.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O2 -flto -I%inputs %s -o %tl -lm && %tl
#include "check.h"
typedef struct { int outstanding; } Pool;
Pool pool = {0};
void *pool_alloc(Pool *p, size_t n) { p->outstanding++; return malloc(n); }
void pool_free(void *ptr, Pool *p) { p->outstanding--; free(ptr); }
void *my_alloc(size_t n) { return malloc(n); }
void my_free(void *p) { free(p); }
void *__enzyme_allocation_like_pool[4] = {(void *)pool_alloc, (void *)1, (void *)"-1,0", (void *)pool_free};
void *__enzyme_allocation_like[4] = {(void *)my_alloc, (void *)0, (void *)"free", (void *)my_free};
typedef struct { double *data; long n; } Buf;
static double grow(Buf *b, double a) {
  double s = 0;
  for (long i = 0; i < b->n; i++) s += b->data[i] * b->data[i];
  double *nd = (double *)my_alloc(2 * b->n * sizeof(double));
  memcpy(nd, b->data, b->n * sizeof(double));
  my_free(b->data);
  b->data = nd;
  for (long i = 0; i < b->n; i++) nd[b->n + i] = nd[i] * a + s;
  b->n *= 2;
  double t = 0;
  for (long i = 0; i < b->n; i++) t += nd[i] * (i + 1);
  return t;
}
static double growp(Buf *b, double a) {
  double s = 0;
  for (long i = 0; i < b->n; i++) s += b->data[i] * b->data[i];
  double *nd = (double *)pool_alloc(&pool, 2 * b->n * sizeof(double));
  memcpy(nd, b->data, b->n * sizeof(double));
  pool_free(b->data, &pool);
  b->data = nd;
  for (long i = 0; i < b->n; i++) nd[b->n + i] = nd[i] * a + s;
  b->n *= 2;
  double t = 0;
  for (long i = 0; i < b->n; i++) t += nd[i] * (i + 1);
  return t;
}
int main(void) {
  for (int w = 0; w < 2; w++) {
    double x0[3] = {0.5, -1, 2};
    Buf b = {(double *)malloc(24), 3}, db = {(double *)calloc(3, 8), 3};
    memcpy(b.data, x0, 24);
    if (w)
      __enzyme_autodiff((void *)growp, enzyme_dup, &b, &db, enzyme_const, 0.7);
    else
      __enzyme_autodiff((void *)grow, enzyme_dup, &b, &db, enzyme_const, 0.7);
    // t = sum_i x_i (i+1) + sum_i (a x_i + s)(4+i), s = sum x^2: dt/dx_i = (i+1) + a(4+i) + 2 x_i * (4+5+6)
    for (int i = 0; i < 3; i++)
      CHECK_CLOSE(db.data[i], (i + 1) + 0.7 * (4 + i) + 2 * x0[i] * 15, 1e-12, "%s d/dx[%d]", w ? "pool" : "user", i);
    for (int i = 0; i < 3; i++) { // forward mode along each input agrees
      Buf c = {(double *)malloc(24), 3}, dc = {(double *)calloc(3, 8), 3};
      memcpy(c.data, x0, 24);
      dc.data[i] = 1;
      double t = w ? __enzyme_fwddiff((void *)growp, enzyme_dup, &c, &dc, enzyme_const, 0.7)
                   : __enzyme_fwddiff((void *)grow, enzyme_dup, &c, &dc, enzyme_const, 0.7);
      CHECK_CLOSE(t, db.data[i], 1e-12, "%s forward vs reverse [%d]", w ? "pool" : "user", i);
      free(c.data);
      free(dc.data);
    }
    free(b.data);
    free(db.data);
  }
  return check_report();
}
