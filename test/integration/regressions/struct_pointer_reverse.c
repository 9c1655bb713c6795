// Reduced from structs.c (issue 8): reverse mode through a struct that holds a pointer to active
// data; the shadow struct holds the shadow pointer and a zero length. With the engine built at
// 15:15 on the day of issue 8 this program (and structs.c) segfaulted at -O0 and -O2.
// RUN: %synthase-cc -O0 %s -o %t0 && %t0
// RUN: %synthase-cc -O2 %s -o %t2 && %t2
#include <stdio.h>
typedef struct { double *data; int len; double scale; } Buf;
double __enzyme_autodiff(void *, ...);
static double buf_loss(const Buf *b) {
  double s = 0;
  for (int i = 0; i < b->len; ++i)
    s += b->scale * b->data[i] * b->data[i] * b->data[i];
  return s;
}
int main(void) {
  double data[3] = {1, 2, 3}, ddata[3] = {0, 0, 0};
  Buf b = {data, 3, 1.5}, db = {ddata, 0, 0.0};
  __enzyme_autodiff((void *)buf_loss, &b, &db);
  printf("%g %g %g %g (want 4.5 18 40.5 36)\n", ddata[0], ddata[1], ddata[2], db.scale);
  return !(ddata[1] == 18 && db.scale == 36);
}
