// A local record that keeps one address as an integer beside integer counters (the shape of
// hashbrown's table: control pointer, bucket mask, growth left, item count), also reached through
// a pointer that merges two records. The counters, computed from one another, from constants and
// from bytes of a hash, hold no address; the address field keeps its shadow. (Rust's HashMap in
// release builds, frontends/rust/examples/collections.rs, is where integers stored beside such
// an address were refused as rebuilt addresses.) Gradients against central differences, forward
// mode against both (check_gradient_n).
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
#include "check.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct table {
  uintptr_t data; // the address of the values, as an integer
  size_t mask, left, items;
  const double *spill;
};

static void table_init(struct table *t, double *buf, size_t buckets) {
  t->data = (uintptr_t)buf;
  t->mask = buckets - 1;
  t->left = buckets < 8 ? buckets - 1 : buckets / 8 * 7;
  t->items = 0;
  t->spill = buf;
}

static double tables(const double *x, int n) {
  double bufa[16], bufb[16];
  memset(bufa, 0, sizeof bufa);
  memset(bufb, 0, sizeof bufb);
  struct table a, b;
  table_init(&a, bufa, 16);
  table_init(&b, bufb, 8);
  for (int i = 0; i < n; i++) {
    // A merged pointer into one of the records: its accesses are at one offset of either.
    struct table *t = (x[i] > 0.5) ? &a : &b;
    double *d = (double *)t->data;
    size_t h = ((size_t)i * 0x9e3779b97f4a7c15u) >> 59; // a byte of a hash
    d[(h + (size_t)i) & t->mask] += x[i] * x[i] + 0.25 * t->spill[i & 3];
    t->items = t->items + 1;
    a.left = a.left - (h & 1); // written through the record itself, beside its address field
    if (a.left == 0) // "grow": counters recomputed from the old ones
      a.left = (a.mask + 1) / 8 * 7 - a.items;
    b.mask = (b.mask << 1 | 1) & 7;
  }
  double s = 0;
  for (int k = 0; k < 16; k++)
    s += sin(((const double *)a.data)[k]) * (double)(a.items + 1);
  for (int k = 0; k < 8; k++)
    s += ((const double *)b.data)[k] * b.spill[k] * (double)(b.left + 1);
  return s;
}

int main(void) {
  check_gradient_n(tables, 9, "address-free fields", 1e-6);
  return check_report();
}
