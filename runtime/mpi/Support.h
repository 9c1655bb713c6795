// Helpers shared by the MPI derivative runtime's files (SynthaseMPI.c, Alltoall.c). Static so
// the archive exports only the __synthase_mpi_* entry points to the program it is linked into.
#ifndef SYNTHASE_RUNTIME_MPI_SUPPORT_H
#define SYNTHASE_RUNTIME_MPI_SUPPORT_H
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  void *tape;
  int ret;
} AugResult;

static inline int64_t fwdResult(int r) {
  // {result, result} as clang returns a struct of two ints.
  struct {
    int a, b;
  } p = {r, r};
  int64_t out;
  memcpy(&out, &p, sizeof out);
  return out;
}

static inline AugResult aug(void *tape, int ret) {
  AugResult a = {tape, ret};
  return a;
}

static inline void fail(const char *call, const char *why) {
  fprintf(stderr, "synthase: the derivative of %s: %s\n", call, why);
  MPI_Abort(MPI_COMM_WORLD, 70);
}

/// Bytes per element of a derivative-carrying datatype, or 0 for one that carries none.
static inline size_t activeSize(MPI_Datatype T) {
  if (T == MPI_DOUBLE)
    return sizeof(double);
  if (T == MPI_FLOAT)
    return sizeof(float);
  if (T != MPI_DATATYPE_NULL) {
    // A derived datatype may hold floats the derivative would silently drop.
    int ni, na, nd, comb;
    MPI_Type_get_envelope(T, &ni, &na, &nd, &comb);
    if (comb != MPI_COMBINER_NAMED)
      fail("an MPI call in differentiated code", "derived datatypes carry no derivative; communicate "
                                                   "MPI_DOUBLE or MPI_FLOAT arrays");
  }
  return 0;
}

static inline int isInPlace(const void *P) { return P == MPI_IN_PLACE; }

static inline void *scratch(size_t n, size_t es) {
  void *p = calloc(n ? n : 1, es ? es : 1);
  if (!p)
    fail("an MPI call", "out of memory for a derivative buffer");
  return p;
}

/// dst[i] += src[i]
static inline void accumulate(void *dst, const void *src, size_t n, MPI_Datatype T) {
  if (!dst)
    return;
  if (T == MPI_DOUBLE)
    for (size_t i = 0; i < n; ++i)
      ((double *)dst)[i] += ((const double *)src)[i];
  else
    for (size_t i = 0; i < n; ++i)
      ((float *)dst)[i] += ((const float *)src)[i];
}

static inline void zero(void *p, size_t n, size_t es) {
  if (p)
    memset(p, 0, n * es);
}

/// A copy of the shadow (zeros without one).
static inline void *copyOf(const void *p, size_t n, size_t es) {
  void *c = scratch(n, es);
  if (p)
    memcpy(c, p, n * es);
  return c;
}

static inline size_t pairSize(MPI_Datatype S, MPI_Datatype R, const char *name) {
  size_t a = activeSize(S), b = activeSize(R);
  if (a != b && S != MPI_DATATYPE_NULL && R != MPI_DATATYPE_NULL)
    fail(name, "the send and receive datatypes differ; derivatives need both MPI_DOUBLE or both MPI_FLOAT");
  return a ? a : b;
}

static inline int commSize(MPI_Comm c) {
  int s;
  MPI_Comm_size(c, &s);
  return s;
}

static inline int rankOf(MPI_Comm c) {
  int r;
  MPI_Comm_rank(c, &r);
  return r;
}

#endif
