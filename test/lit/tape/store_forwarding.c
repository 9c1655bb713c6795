// Store-to-load forwarding across sibling loops (Reverse/StoreForwarding.cpp), IR shape. GMM's
// scratch buffer xc is filled in one loop and read by the next two: the reverse sweep rebuilds
// each read as x[i*d+j] - mu[c*d+j] with the reading loop's counter, so no load of xc is taped;
// q's reads stay taped (q has two writers). When the buffer is written again between the fill
// and the read (`rewritten`), the read stays taped.
// RUN: %clang -O1 -Xclang -disable-llvm-passes -fno-discard-value-names -S -emit-llvm %s -o %t.ll
// RUN: %opt -passes='synthase<no-postopt>' -synthase-tape-report -disable-output %t.ll 2>&1 | %FileCheck %s --check-prefix=FWD
// RUN: %opt -passes='synthase<no-postopt>' -synthase-tape-report -disable-output %t.ll 2>&1 | %FileCheck %s --check-prefix=KEEP
// RUN: %opt -passes='synthase<no-postopt>' -S %t.ll | %FileCheck %s --check-prefix=REV

// The two shadow pointers, which the entry's reverse and the last block's reverse both need, are
// taped once, by the last block (SharedPops.cpp).
// FWD-LABEL: tape of augmented_centred:
// FWD-NEXT:    block for.end{{[0-9]*}} (16 bytes):
// FWD-NEXT:      %call3.shadow = call ptr @__synthase_shadow_get_v1
// FWD-NEXT:      %call.shadow = call ptr @__synthase_shadow_get_v1
// FWD-NEXT:    block for.inc{{[0-9]*}} (8 bytes):
// FWD-NEXT:      = load double, ptr %arrayidx{{[0-9]*}}
// FWD-NOT:     block

// KEEP-LABEL: tape of augmented_rewritten:
// KEEP:        block for.inc{{[0-9]*}} (8 bytes):
// KEEP-NEXT:     = load double, ptr %arrayidx{{[0-9]*}}

// The reverse of the squares loop and of the triangular loop each recompute xc's value.
// REV-LABEL: define {{.*}} @reverse_centred(
// REV-COUNT-2: fsub double
// REV-NOT:     fsub double
// REV:       ret void

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
void *malloc(unsigned long);
void free(void *);

/* GMM's scratch buffer: xc is filled in one loop and read by the next two; the reads are
 * rebuilt from x and mu in the reverse sweep instead of taped. q's reads stay taped: q is written
 * by two stores. */
static double centred(const double *x, const double *mu, int n, int k, int d) {
  double *xc = (double *)malloc(sizeof(double) * d), *q = (double *)malloc(sizeof(double) * d);
  double s = 0;
  for (int i = 0; i < n; ++i)
    for (int c = 0; c < k; ++c) {
      for (int j = 0; j < d; ++j)
        xc[j] = x[i * d + j] - mu[c * d + j];
      for (int j = 0; j < d; ++j)
        q[j] = xc[j] * xc[j];
      for (int cc = 0; cc < d; ++cc)
        for (int r = cc + 1; r < d; ++r)
          q[r] += mu[r] * xc[cc];
      for (int j = 0; j < d; ++j)
        s += q[j] * q[j];
    }
  free(xc);
  free(q);
  return s;
}

void grad_centred(const double *x, const double *mu, double *dmu, int n, int k, int d) {
  __enzyme_autodiff((void *)centred, enzyme_const, x, enzyme_dup, mu, dmu, enzyme_const, n, enzyme_const, k,
                    enzyme_const, d);
}

/* Not forwarded: the buffer is written again between the fill and the read. */
static double rewritten(const double *x, int n, int d) {
  double *xc = (double *)malloc(sizeof(double) * d);
  double s = 0;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < d; ++j)
      xc[j] = x[i * d + j] - x[j];
    xc[0] = x[i];
    for (int j = 0; j < d; ++j)
      s += xc[j] * xc[j];
  }
  free(xc);
  return s;
}

void grad_rewritten(const double *x, double *dx, int n, int d) {
  __enzyme_autodiff((void *)rewritten, enzyme_dup, x, dx, enzyme_const, n, enzyme_const, d);
}
