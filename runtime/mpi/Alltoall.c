// Derivatives of MPI_Alltoall and MPI_Alltoallv (conventions: see SynthaseMPI.c). Both move
// block j of rank i to block i of rank j, a permutation of the data across ranks, so the tangent
// takes the same exchange and the adjoint the exchange back (counts and displacements of the two
// sides swapped), added into the send buffer's shadow; the received blocks' adjoints are spent.
#include "Support.h"

/* ---------------- Alltoall ---------------- */

int64_t __synthase_mpi_alltoall_fwd(const void *sb, const void *dsb, int sn, int sn_, MPI_Datatype ST,
                                    MPI_Datatype ST_, void *rb, void *drb, int rn, int rn_, MPI_Datatype RT,
                                    MPI_Datatype RT_, MPI_Comm c, MPI_Comm c_) {
  int r = MPI_Alltoall(sb, sn, ST, rb, rn, RT, c);
  size_t es = pairSize(isInPlace(sb) ? RT : ST, RT, "MPI_Alltoall");
  if (es) {
    size_t P = (size_t)commSize(c);
    void *z = (!isInPlace(sb) && !dsb) ? scratch(P * sn, es) : NULL;
    void *t = drb ? NULL : scratch(P * rn, es);
    MPI_Alltoall(isInPlace(sb) ? MPI_IN_PLACE : (z ? z : dsb), sn, ST, t ? t : drb, rn, RT, c);
    free(z), free(t);
  }
  return fwdResult(r);
}

AugResult __synthase_mpi_alltoall_aug(const void *sb, void *dsb, int sn, int sn_, MPI_Datatype ST, MPI_Datatype ST_,
                                      void *rb, void *drb, int rn, int rn_, MPI_Datatype RT, MPI_Datatype RT_,
                                      MPI_Comm c, MPI_Comm c_) {
  return aug(NULL, MPI_Alltoall(sb, sn, ST, rb, rn, RT, c));
}

void __synthase_mpi_alltoall_rev(const void *sb, void *dsb, int sn, int sn_, MPI_Datatype ST, MPI_Datatype ST_,
                                 void *rb, void *drb, int rn, int rn_, MPI_Datatype RT, MPI_Datatype RT_, MPI_Comm c,
                                 MPI_Comm c_, void *tape) {
  size_t es = pairSize(isInPlace(sb) ? RT : ST, RT, "MPI_Alltoall");
  if (!es)
    return;
  size_t P = (size_t)commSize(c);
  if (isInPlace(sb)) { // the exchange is its own inverse: the adjoints swap back in place
    void *t = drb ? NULL : scratch(P * rn, es);
    MPI_Alltoall(MPI_IN_PLACE, 0, RT, t ? t : drb, rn, RT, c);
    free(t);
    return;
  }
  void *back = copyOf(drb, P * rn, es);
  zero(drb, P * rn, es);
  void *mine = scratch(P * sn, es);
  MPI_Alltoall(back, rn, RT, mine, sn, ST, c);
  accumulate(dsb, mine, P * sn, ST);
  free(back), free(mine);
}

/* ---------------- Alltoallv ---------------- */

/// Elements from the buffer's start to the end of its last block.
static size_t extentOf(const int *counts, const int *displs, int P) {
  size_t e = 0;
  for (int j = 0; j < P; ++j)
    if (counts[j] > 0 && (size_t)(displs[j] + counts[j]) > e)
      e = (size_t)(displs[j] + counts[j]);
  return e;
}

/// Displacements of the same blocks packed one after the other; returns the total count.
static size_t packedDispls(const int *counts, int P, int *out) {
  size_t at = 0;
  for (int j = 0; j < P; ++j) {
    out[j] = (int)at;
    at += counts[j] > 0 ? (size_t)counts[j] : 0;
  }
  return at;
}

/// What the reverse needs of the call: the counts and displacements as they were (the program may
/// reuse the arrays before the reverse sweep runs).
typedef struct {
  int inPlace;
  int P;
  int v[]; // sendcounts, sdispls, recvcounts, rdispls: P each
} AlltoallvTape;

int64_t __synthase_mpi_alltoallv_fwd(const void *sb, const void *dsb, const int *sc, const int *sc_, const int *sd,
                                     const int *sd_, MPI_Datatype ST, MPI_Datatype ST_, void *rb, void *drb,
                                     const int *rc, const int *rc_, const int *rd, const int *rd_, MPI_Datatype RT,
                                     MPI_Datatype RT_, MPI_Comm c, MPI_Comm c_) {
  int r = MPI_Alltoallv(sb, sc, sd, ST, rb, rc, rd, RT, c);
  size_t es = pairSize(isInPlace(sb) ? RT : ST, RT, "MPI_Alltoallv");
  if (es) {
    int P = commSize(c);
    void *z = (!isInPlace(sb) && !dsb) ? scratch(extentOf(sc, sd, P), es) : NULL;
    void *t = drb ? NULL : scratch(extentOf(rc, rd, P), es);
    MPI_Alltoallv(isInPlace(sb) ? MPI_IN_PLACE : (z ? z : dsb), sc, sd, ST, t ? t : drb, rc, rd, RT, c);
    free(z), free(t);
  }
  return fwdResult(r);
}

AugResult __synthase_mpi_alltoallv_aug(const void *sb, void *dsb, const int *sc, const int *sc_, const int *sd,
                                       const int *sd_, MPI_Datatype ST, MPI_Datatype ST_, void *rb, void *drb,
                                       const int *rc, const int *rc_, const int *rd, const int *rd_,
                                       MPI_Datatype RT, MPI_Datatype RT_, MPI_Comm c, MPI_Comm c_) {
  int r = MPI_Alltoallv(sb, sc, sd, ST, rb, rc, rd, RT, c);
  int P = commSize(c);
  AlltoallvTape *t = scratch(1, sizeof(AlltoallvTape) + 4 * (size_t)P * sizeof(int));
  t->inPlace = isInPlace(sb);
  t->P = P;
  if (!t->inPlace) { // in place, the send arguments are ignored (and may be anything)
    memcpy(t->v, sc, P * sizeof(int));
    memcpy(t->v + P, sd, P * sizeof(int));
  }
  memcpy(t->v + 2 * P, rc, P * sizeof(int));
  memcpy(t->v + 3 * P, rd, P * sizeof(int));
  return aug(t, r);
}

void __synthase_mpi_alltoallv_rev(const void *sb, void *dsb, const int *sc_now, const int *sc_, const int *sd_now,
                                  const int *sd_, MPI_Datatype ST, MPI_Datatype ST_, void *rb, void *drb,
                                  const int *rc_now, const int *rc_, const int *rd_now, const int *rd_,
                                  MPI_Datatype RT, MPI_Datatype RT_, MPI_Comm c, MPI_Comm c_, void *tape) {
  AlltoallvTape *t = tape;
  int P = t->P, in = t->inPlace;
  const int *sc = t->v, *sd = t->v + P, *rc = t->v + 2 * P, *rd = t->v + 3 * P;
  size_t es = pairSize(in ? RT : ST, RT, "MPI_Alltoallv");
  if (!es) {
    free(t);
    return;
  }
  // The received blocks' adjoints, packed, then spent.
  int *pr = scratch(P, sizeof(int)), *ps = scratch(P, sizeof(int));
  size_t nr = packedDispls(rc, P, pr);
  char *back = scratch(nr, es);
  for (int j = 0; j < P; ++j)
    if (rc[j] > 0 && drb) {
      memcpy(back + (size_t)pr[j] * es, (char *)drb + (size_t)rd[j] * es, (size_t)rc[j] * es);
      zero((char *)drb + (size_t)rd[j] * es, rc[j], es);
    }
  // Sent back along the reversed exchange: in place the send side is the receive side.
  const int *bc = in ? rc : sc, *bd = in ? rd : sd;
  size_t ns = packedDispls(bc, P, ps);
  char *mine = scratch(ns, es);
  MPI_Alltoallv(back, rc, pr, RT, mine, bc, ps, in ? RT : ST, c);
  void *dst = in ? drb : dsb;
  for (int j = 0; j < P; ++j)
    if (bc[j] > 0)
      accumulate(dst ? (char *)dst + (size_t)bd[j] * es : NULL, mine + (size_t)ps[j] * es, bc[j], in ? RT : ST);
  free(back), free(mine), free(pr), free(ps), free(t);
}
