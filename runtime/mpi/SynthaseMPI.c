// Derivatives of MPI calls, linked into programs built by synthase-cc (libsynthase_mpi.a). The
// plugin registers these functions for the MPI calls of a module (lib/Rules/MPI.cpp) in
// Enzyme's custom-derivative convention:
//   __synthase_mpi_X_fwd(each argument followed by its tangent) -> {result, result} (as i64)
//   __synthase_mpi_X_aug(each argument followed by its shadow)  -> {tape, result}
//   __synthase_mpi_X_rev(each argument followed by its shadow, tape)
// A shadow the engine does not have (constant memory) arrives as a null pointer: the runtime
// still takes part in the derivative communication (zeros out, discarded in), so both ends of a
// message stay matched. Only MPI_DOUBLE and MPI_FLOAT carry derivatives.
#include "Support.h"

static MPI_Op checkedOp(MPI_Op op, const char *call) {
  if (op != MPI_SUM && op != MPI_MAX && op != MPI_MIN)
    fail(call, "only MPI_SUM, MPI_MAX and MPI_MIN reductions have derivatives");
  return op;
}

/* ---------------- Send / Recv ---------------- */

int64_t __synthase_mpi_send_fwd(const void *buf, const void *dbuf, int n, int n_, MPI_Datatype T, MPI_Datatype T_,
                                int dest, int dest_, int tag, int tag_, MPI_Comm c, MPI_Comm c_) {
  int r = MPI_Send(buf, n, T, dest, tag, c);
  size_t es = activeSize(T);
  if (es) {
    void *z = dbuf ? NULL : scratch(n, es);
    MPI_Send(dbuf ? dbuf : z, n, T, dest, tag, c);
    free(z);
  }
  return fwdResult(r);
}

AugResult __synthase_mpi_send_aug(const void *buf, void *dbuf, int n, int n_, MPI_Datatype T, MPI_Datatype T_,
                                  int dest, int dest_, int tag, int tag_, MPI_Comm c, MPI_Comm c_) {
  return aug(NULL, MPI_Send(buf, n, T, dest, tag, c));
}

void __synthase_mpi_send_rev(const void *buf, void *dbuf, int n, int n_, MPI_Datatype T, MPI_Datatype T_, int dest,
                             int dest_, int tag, int tag_, MPI_Comm c, MPI_Comm c_, void *tape) {
  size_t es = activeSize(T);
  if (!es)
    return;
  void *t = scratch(n, es);
  MPI_Recv(t, n, T, dest, tag, c, MPI_STATUS_IGNORE);
  accumulate(dbuf, t, n, T);
  free(t);
}

/// Where a receive's message came from: the adjoint goes back there.
typedef struct {
  int source, tag;
} Origin;

/// Where the message a receive from (src, tag) matched came from: the status says so for a
/// wildcard; otherwise the call's own values (a receive from MPI_PROC_NULL reports MPI_ANY_TAG,
/// which no send may use).
static Origin originOf(int src, int tag, const MPI_Status *st) {
  Origin o = {src == MPI_ANY_SOURCE ? st->MPI_SOURCE : src, tag == MPI_ANY_TAG ? st->MPI_TAG : tag};
  return o;
}

static void keepStatus(MPI_Status *user, const MPI_Status *st) {
  if (user != MPI_STATUS_IGNORE)
    *user = *st;
}

int64_t __synthase_mpi_recv_fwd(void *buf, void *dbuf, int n, int n_, MPI_Datatype T, MPI_Datatype T_, int src,
                                int src_, int tag, int tag_, MPI_Comm c, MPI_Comm c_, MPI_Status *st,
                                MPI_Status *st_) {
  MPI_Status s;
  int r = MPI_Recv(buf, n, T, src, tag, c, &s);
  keepStatus(st, &s);
  size_t es = activeSize(T);
  if (es) {
    void *t = dbuf ? NULL : scratch(n, es);
    Origin o = originOf(src, tag, &s);
    MPI_Recv(dbuf ? dbuf : t, n, T, o.source, o.tag, c, MPI_STATUS_IGNORE);
    free(t);
  }
  return fwdResult(r);
}

AugResult __synthase_mpi_recv_aug(void *buf, void *dbuf, int n, int n_, MPI_Datatype T, MPI_Datatype T_, int src,
                                  int src_, int tag, int tag_, MPI_Comm c, MPI_Comm c_, MPI_Status *st,
                                  MPI_Status *st_) {
  MPI_Status s;
  int r = MPI_Recv(buf, n, T, src, tag, c, &s);
  keepStatus(st, &s);
  Origin *o = NULL;
  if (activeSize(T)) {
    o = scratch(1, sizeof *o);
    *o = originOf(src, tag, &s);
  }
  return aug(o, r);
}

void __synthase_mpi_recv_rev(void *buf, void *dbuf, int n, int n_, MPI_Datatype T, MPI_Datatype T_, int src,
                             int src_, int tag, int tag_, MPI_Comm c, MPI_Comm c_, MPI_Status *st, MPI_Status *st_,
                             void *tape) {
  Origin *o = tape;
  size_t es = activeSize(T);
  if (!es || !o)
    return;
  void *t = copyOf(dbuf, n, es);
  zero(dbuf, n, es); // the receive overwrote buf: its earlier value had no say in the result
  MPI_Send(t, n, T, o->source, o->tag, c);
  free(t);
  free(o);
}

/* ---------------- Sendrecv ---------------- */

int64_t __synthase_mpi_sendrecv_fwd(const void *sb, const void *dsb, int sn, int sn_, MPI_Datatype ST,
                                    MPI_Datatype ST_, int dest, int dest_, int stag, int stag_, void *rb,
                                    void *drb, int rn, int rn_, MPI_Datatype RT, MPI_Datatype RT_, int src,
                                    int src_, int rtag, int rtag_, MPI_Comm c, MPI_Comm c_, MPI_Status *st,
                                    MPI_Status *st_) {
  MPI_Status s;
  int r = MPI_Sendrecv(sb, sn, ST, dest, stag, rb, rn, RT, src, rtag, c, &s);
  keepStatus(st, &s);
  size_t ses = activeSize(ST), res = activeSize(RT);
  if (ses || res) {
    void *z = (ses && !dsb) ? scratch(sn, ses) : NULL;
    void *t = (res && !drb) ? scratch(rn, res) : NULL;
    MPI_Sendrecv(ses ? (dsb ? dsb : z) : NULL, ses ? sn : 0, ST, ses ? dest : MPI_PROC_NULL, stag,
                 res ? (drb ? drb : t) : NULL, res ? rn : 0, RT, res ? originOf(src, rtag, &s).source : MPI_PROC_NULL,
                 originOf(src, rtag, &s).tag, c,
                 MPI_STATUS_IGNORE);
    free(z), free(t);
  }
  return fwdResult(r);
}

AugResult __synthase_mpi_sendrecv_aug(const void *sb, void *dsb, int sn, int sn_, MPI_Datatype ST, MPI_Datatype ST_,
                                      int dest, int dest_, int stag, int stag_, void *rb, void *drb, int rn,
                                      int rn_, MPI_Datatype RT, MPI_Datatype RT_, int src, int src_, int rtag,
                                      int rtag_, MPI_Comm c, MPI_Comm c_, MPI_Status *st, MPI_Status *st_) {
  MPI_Status s;
  int r = MPI_Sendrecv(sb, sn, ST, dest, stag, rb, rn, RT, src, rtag, c, &s);
  keepStatus(st, &s);
  Origin *o = scratch(1, sizeof *o);
  *o = originOf(src, rtag, &s);
  return aug(o, r);
}

void __synthase_mpi_sendrecv_rev(const void *sb, void *dsb, int sn, int sn_, MPI_Datatype ST, MPI_Datatype ST_,
                                 int dest, int dest_, int stag, int stag_, void *rb, void *drb, int rn, int rn_,
                                 MPI_Datatype RT, MPI_Datatype RT_, int src, int src_, int rtag, int rtag_,
                                 MPI_Comm c, MPI_Comm c_, MPI_Status *st, MPI_Status *st_, void *tape) {
  Origin *o = tape;
  size_t ses = activeSize(ST), res = activeSize(RT);
  if (ses || res) {
    // The received part's adjoint goes back to its source; the sent part's comes from dest.
    void *out = res ? copyOf(drb, rn, res) : NULL;
    if (res)
      zero(drb, rn, res);
    void *in = ses ? scratch(sn, ses) : NULL;
    MPI_Sendrecv(out, res ? rn : 0, RT, res ? o->source : MPI_PROC_NULL, o->tag, in, ses ? sn : 0, ST,
                 ses ? dest : MPI_PROC_NULL, stag, c, MPI_STATUS_IGNORE);
    if (ses)
      accumulate(dsb, in, sn, ST);
    free(out), free(in);
  }
  free(o);
}

/* ---------------- Non-blocking: Isend / Irecv / Wait / Waitall ----------------
 * The shadow of a request is a record found by the request's address: Isend/Irecv create it,
 * Wait takes it (both put it on their tape). The reverse of Wait posts the adjoint message into
 * the record; the reverse of Isend/Irecv, which runs later, waits for it and frees the record.
 * Forward mode keeps the tangent message's request in the same record. */

enum { ISEND, IRECV };

typedef struct Shadow {
  int kind;
  void *buf, *dbuf, *tmp;
  int n, peer, tag;
  MPI_Datatype T;
  MPI_Comm c;
  MPI_Request adj;     ///< the adjoint (reverse) or tangent (forward) message
  MPI_Request *key;    ///< the user's request, while pending
  struct Shadow *next; ///< pending records
} Shadow;

static Shadow *pending;

static Shadow *post(int kind, void *buf, void *dbuf, int n, MPI_Datatype T, int peer, int tag, MPI_Comm c,
                    MPI_Request *key) {
  Shadow *s = scratch(1, sizeof *s);
  s->kind = kind, s->buf = buf, s->dbuf = dbuf, s->n = n, s->T = T, s->peer = peer, s->tag = tag, s->c = c;
  s->adj = MPI_REQUEST_NULL, s->key = key;
  s->next = pending;
  pending = s;
  return s;
}

/// The pending record of a request, unlinked; null for a request posted outside differentiated
/// code (or MPI_REQUEST_NULL).
static Shadow *take(MPI_Request *key) {
  for (Shadow **p = &pending; *p; p = &(*p)->next)
    if ((*p)->key == key) {
      Shadow *s = *p;
      *p = s->next;
      s->next = NULL, s->key = NULL;
      return s;
    }
  return NULL;
}

int64_t __synthase_mpi_isend_fwd(const void *buf, const void *dbuf, int n, int n_, MPI_Datatype T, MPI_Datatype T_,
                                 int dest, int dest_, int tag, int tag_, MPI_Comm c, MPI_Comm c_, MPI_Request *rq,
                                 MPI_Request *rq_) {
  int r = MPI_Isend(buf, n, T, dest, tag, c, rq);
  size_t es = activeSize(T);
  if (es) {
    Shadow *s = post(ISEND, (void *)buf, (void *)dbuf, n, T, dest, tag, c, rq);
    if (!dbuf)
      s->tmp = scratch(n, es);
    MPI_Isend(dbuf ? dbuf : s->tmp, n, T, dest, tag, c, &s->adj);
  }
  return fwdResult(r);
}

int64_t __synthase_mpi_irecv_fwd(void *buf, void *dbuf, int n, int n_, MPI_Datatype T, MPI_Datatype T_, int src,
                                 int src_, int tag, int tag_, MPI_Comm c, MPI_Comm c_, MPI_Request *rq,
                                 MPI_Request *rq_) {
  int r = MPI_Irecv(buf, n, T, src, tag, c, rq);
  size_t es = activeSize(T);
  if (es) {
    if (src == MPI_ANY_SOURCE || tag == MPI_ANY_TAG)
      fail("MPI_Irecv", "forward mode needs the source and tag of a non-blocking receive (not MPI_ANY_*)");
    Shadow *s = post(IRECV, buf, dbuf, n, T, src, tag, c, rq);
    if (!dbuf)
      s->tmp = scratch(n, es);
    MPI_Irecv(dbuf ? dbuf : s->tmp, n, T, src, tag, c, &s->adj);
  }
  return fwdResult(r);
}

static void finishTangent(Shadow *s) {
  if (!s)
    return;
  MPI_Wait(&s->adj, MPI_STATUS_IGNORE);
  free(s->tmp);
  free(s);
}

int64_t __synthase_mpi_wait_fwd(MPI_Request *rq, MPI_Request *rq_, MPI_Status *st, MPI_Status *st_) {
  Shadow *s = take(rq);
  int r = MPI_Wait(rq, st);
  finishTangent(s);
  return fwdResult(r);
}

int64_t __synthase_mpi_waitall_fwd(int n, int n_, MPI_Request *rq, MPI_Request *rq_, MPI_Status *st,
                                   MPI_Status *st_) {
  Shadow **s = scratch(n, sizeof *s);
  for (int i = 0; i < n; ++i)
    s[i] = take(&rq[i]);
  int r = MPI_Waitall(n, rq, st);
  for (int i = 0; i < n; ++i)
    finishTangent(s[i]);
  free(s);
  return fwdResult(r);
}

AugResult __synthase_mpi_isend_aug(const void *buf, void *dbuf, int n, int n_, MPI_Datatype T, MPI_Datatype T_,
                                   int dest, int dest_, int tag, int tag_, MPI_Comm c, MPI_Comm c_,
                                   MPI_Request *rq, MPI_Request *rq_) {
  int r = MPI_Isend(buf, n, T, dest, tag, c, rq);
  return aug(post(ISEND, (void *)buf, dbuf, n, T, dest, tag, c, rq), r);
}

AugResult __synthase_mpi_irecv_aug(void *buf, void *dbuf, int n, int n_, MPI_Datatype T, MPI_Datatype T_, int src,
                                   int src_, int tag, int tag_, MPI_Comm c, MPI_Comm c_, MPI_Request *rq,
                                   MPI_Request *rq_) {
  int r = MPI_Irecv(buf, n, T, src, tag, c, rq);
  return aug(post(IRECV, buf, dbuf, n, T, src, tag, c, rq), r);
}

/// The reverse of an Isend/Irecv: the adjoint message the reverse of its Wait posted arrives.
static void finishAdjoint(Shadow *s) {
  if (!s)
    return;
  if (s->key) // still pending: the primal was completed outside differentiated code, unseen
    fail(s->kind == ISEND ? "MPI_Isend" : "MPI_Irecv",
         "its request was not completed by MPI_Wait/MPI_Waitall inside the differentiated code, so its "
         "adjoint message cannot be exchanged; wait for it in the same differentiated function");
  MPI_Wait(&s->adj, MPI_STATUS_IGNORE);
  if (s->kind == ISEND && s->tmp)
    accumulate(s->dbuf, s->tmp, s->n, s->T);
  free(s->tmp);
  free(s);
}

void __synthase_mpi_isend_rev(const void *buf, void *dbuf, int n, int n_, MPI_Datatype T, MPI_Datatype T_, int dest,
                              int dest_, int tag, int tag_, MPI_Comm c, MPI_Comm c_, MPI_Request *rq,
                              MPI_Request *rq_, void *tape) {
  finishAdjoint(tape);
}

void __synthase_mpi_irecv_rev(void *buf, void *dbuf, int n, int n_, MPI_Datatype T, MPI_Datatype T_, int src,
                              int src_, int tag, int tag_, MPI_Comm c, MPI_Comm c_, MPI_Request *rq,
                              MPI_Request *rq_, void *tape) {
  finishAdjoint(tape);
}

/// The reverse of a Wait: post the adjoint message of the operation it completed.
static void postAdjoint(Shadow *s) {
  size_t es = s ? activeSize(s->T) : 0;
  if (!es)
    return;
  if (s->kind == ISEND) {
    s->tmp = scratch(s->n, es);
    MPI_Irecv(s->tmp, s->n, s->T, s->peer, s->tag, s->c, &s->adj);
  } else {
    s->tmp = copyOf(s->dbuf, s->n, es);
    zero(s->dbuf, s->n, es);
    MPI_Isend(s->tmp, s->n, s->T, s->peer, s->tag, s->c, &s->adj);
  }
}

static void noteSource(Shadow *s, const MPI_Status *st) {
  if (s && s->kind == IRECV) {
    Origin o = originOf(s->peer, s->tag, st);
    s->peer = o.source, s->tag = o.tag;
  }
}

AugResult __synthase_mpi_wait_aug(MPI_Request *rq, MPI_Request *rq_, MPI_Status *st, MPI_Status *st_) {
  Shadow *s = take(rq);
  MPI_Status l;
  int r = MPI_Wait(rq, &l);
  keepStatus(st, &l);
  noteSource(s, &l);
  return aug(s, r);
}

void __synthase_mpi_wait_rev(MPI_Request *rq, MPI_Request *rq_, MPI_Status *st, MPI_Status *st_, void *tape) {
  postAdjoint(tape);
}

typedef struct {
  int n;
  Shadow *s[];
} ShadowList;

AugResult __synthase_mpi_waitall_aug(int n, int n_, MPI_Request *rq, MPI_Request *rq_, MPI_Status *st,
                                     MPI_Status *st_) {
  ShadowList *L = scratch(1, sizeof(ShadowList) + (size_t)n * sizeof(Shadow *));
  L->n = n;
  for (int i = 0; i < n; ++i)
    L->s[i] = take(&rq[i]);
  MPI_Status *l = scratch(n, sizeof *l);
  int r = MPI_Waitall(n, rq, l);
  for (int i = 0; i < n; ++i) {
    if (st != MPI_STATUSES_IGNORE)
      st[i] = l[i];
    noteSource(L->s[i], &l[i]);
  }
  free(l);
  return aug(L, r);
}

void __synthase_mpi_waitall_rev(int n, int n_, MPI_Request *rq, MPI_Request *rq_, MPI_Status *st, MPI_Status *st_,
                                void *tape) {
  ShadowList *L = tape;
  for (int i = 0; i < L->n; ++i)
    postAdjoint(L->s[i]);
  free(L);
}

/* ---------------- Collectives ---------------- */

int64_t __synthase_mpi_bcast_fwd(void *buf, void *dbuf, int n, int n_, MPI_Datatype T, MPI_Datatype T_, int root,
                                 int root_, MPI_Comm c, MPI_Comm c_) {
  int r = MPI_Bcast(buf, n, T, root, c);
  size_t es = activeSize(T);
  if (es) {
    void *t = dbuf ? NULL : scratch(n, es);
    MPI_Bcast(dbuf ? dbuf : t, n, T, root, c);
    free(t);
  }
  return fwdResult(r);
}

AugResult __synthase_mpi_bcast_aug(void *buf, void *dbuf, int n, int n_, MPI_Datatype T, MPI_Datatype T_, int root,
                                   int root_, MPI_Comm c, MPI_Comm c_) {
  return aug(NULL, MPI_Bcast(buf, n, T, root, c));
}

void __synthase_mpi_bcast_rev(void *buf, void *dbuf, int n, int n_, MPI_Datatype T, MPI_Datatype T_, int root,
                              int root_, MPI_Comm c, MPI_Comm c_, void *tape) {
  size_t es = activeSize(T);
  if (!es)
    return;
  int me;
  MPI_Comm_rank(c, &me);
  void *in = copyOf(dbuf, n, es), *sum = scratch(n, es);
  MPI_Reduce(in, sum, n, T, MPI_SUM, root, c);
  if (me == root) {
    if (dbuf)
      memcpy(dbuf, sum, n * es);
  } else {
    zero(dbuf, n, es);
  }
  free(in), free(sum);
}

/// For MPI_MAX / MPI_MIN: the rank whose element wins, per element (the lowest rank on a tie,
/// as MPI_MAXLOC/MPI_MINLOC choose); that rank's input carries the derivative.
static int *owners(const void *x, int n, MPI_Datatype T, MPI_Op op, MPI_Comm c) {
  int me;
  MPI_Comm_rank(c, &me);
  int *own = scratch(n, sizeof(int));
  MPI_Op loc = op == MPI_MAX ? MPI_MAXLOC : MPI_MINLOC;
  if (T == MPI_DOUBLE) {
    struct {
      double v;
      int r;
    } *p = scratch(n, sizeof *p);
    for (int i = 0; i < n; ++i)
      p[i].v = ((const double *)x)[i], p[i].r = me;
    MPI_Allreduce(MPI_IN_PLACE, p, n, MPI_DOUBLE_INT, loc, c);
    for (int i = 0; i < n; ++i)
      own[i] = p[i].r;
    free(p);
  } else {
    struct {
      float v;
      int r;
    } *p = scratch(n, sizeof *p);
    for (int i = 0; i < n; ++i)
      p[i].v = ((const float *)x)[i], p[i].r = me;
    MPI_Allreduce(MPI_IN_PLACE, p, n, MPI_FLOAT_INT, loc, c);
    for (int i = 0; i < n; ++i)
      own[i] = p[i].r;
    free(p);
  }
  return own;
}

/// x's tangent where this rank owns the element, zero elsewhere.
static void *ownedPart(const void *dx, const int *own, int n, MPI_Datatype T, size_t es, MPI_Comm c) {
  int me;
  MPI_Comm_rank(c, &me);
  void *t = copyOf(dx, n, es);
  for (int i = 0; i < n; ++i)
    if (own[i] != me)
      memset((char *)t + i * es, 0, es);
  return t;
}

/// dx[i] += d[i] where this rank owns element i (or dx[i] = d[i], for an in-place input).
static void accumulateOwned(void *dx, const void *d, const int *own, int n, MPI_Datatype T, MPI_Comm c) {
  void *t = ownedPart(d, own, n, T, activeSize(T), c);
  accumulate(dx, t, n, T);
  free(t);
}

typedef struct {
  int *own;
} ReduceTape;

static int64_t reduceFwd(const void *sb, const void *dsb, void *rb, void *drb, int n, MPI_Datatype T, MPI_Op op,
                         int root, MPI_Comm c, int all, const char *name) {
  size_t es = activeSize(T);
  int me;
  MPI_Comm_rank(c, &me);
  int inplace = isInPlace(sb);
  int *own = NULL;
  if (es && op != MPI_SUM)
    own = owners(inplace ? rb : sb, n, T, checkedOp(op, name), c);
  int r = all ? MPI_Allreduce(sb, rb, n, T, op, c) : MPI_Reduce(sb, rb, n, T, op, root, c);
  if (!es) {
    free(own);
    return fwdResult(r);
  }
  const void *dx = inplace ? drb : dsb;
  void *t = own ? ownedPart(dx, own, n, T, es, c) : copyOf(dx, n, es);
  void *out = (all || me == root) ? (drb ? drb : scratch(n, es)) : NULL;
  if (all)
    MPI_Allreduce(t, out, n, T, MPI_SUM, c);
  else
    MPI_Reduce(t, out, n, T, MPI_SUM, root, c);
  if (out && out != drb)
    free(out);
  free(t), free(own);
  return fwdResult(r);
}

static AugResult reduceAug(const void *sb, void *rb, int n, MPI_Datatype T, MPI_Op op, int root, MPI_Comm c,
                           int all, const char *name) {
  int *own = NULL;
  if (activeSize(T) && checkedOp(op, name) != MPI_SUM)
    own = owners(isInPlace(sb) ? rb : sb, n, T, op, c);
  int r = all ? MPI_Allreduce(sb, rb, n, T, op, c) : MPI_Reduce(sb, rb, n, T, op, root, c);
  return aug(own, r);
}

static void reduceRev(const void *sb, void *dsb, void *drb, int n, MPI_Datatype T, MPI_Op op, int root, MPI_Comm c,
                      int all, int *own) {
  size_t es = activeSize(T);
  if (!es)
    return;
  int me;
  MPI_Comm_rank(c, &me);
  // The result's adjoint, as every rank's inputs see it: summed over ranks for an allreduce
  // (each rank's result depends on every input), the root's for a reduce.
  void *d;
  if (all) {
    void *mine = copyOf(drb, n, es);
    d = scratch(n, es);
    MPI_Allreduce(mine, d, n, T, MPI_SUM, c);
    free(mine);
    zero(drb, n, es);
  } else {
    d = me == root ? copyOf(drb, n, es) : scratch(n, es);
    if (me == root)
      zero(drb, n, es);
    MPI_Bcast(d, n, T, root, c);
  }
  void *dx = isInPlace(sb) ? drb : dsb;
  if (own)
    accumulateOwned(dx, d, own, n, T, c);
  else
    accumulate(dx, d, n, T);
  free(d), free(own);
}

int64_t __synthase_mpi_reduce_fwd(const void *sb, const void *dsb, void *rb, void *drb, int n, int n_, MPI_Datatype T,
                                  MPI_Datatype T_, MPI_Op op, MPI_Op op_, int root, int root_, MPI_Comm c,
                                  MPI_Comm c_) {
  return reduceFwd(sb, dsb, rb, drb, n, T, op, root, c, 0, "MPI_Reduce");
}

AugResult __synthase_mpi_reduce_aug(const void *sb, void *dsb, void *rb, void *drb, int n, int n_, MPI_Datatype T,
                                    MPI_Datatype T_, MPI_Op op, MPI_Op op_, int root, int root_, MPI_Comm c,
                                    MPI_Comm c_) {
  return reduceAug(sb, rb, n, T, op, root, c, 0, "MPI_Reduce");
}

void __synthase_mpi_reduce_rev(const void *sb, void *dsb, void *rb, void *drb, int n, int n_, MPI_Datatype T,
                               MPI_Datatype T_, MPI_Op op, MPI_Op op_, int root, int root_, MPI_Comm c, MPI_Comm c_,
                               void *tape) {
  reduceRev(sb, dsb, drb, n, T, op, root, c, 0, tape);
}

int64_t __synthase_mpi_allreduce_fwd(const void *sb, const void *dsb, void *rb, void *drb, int n, int n_,
                                     MPI_Datatype T, MPI_Datatype T_, MPI_Op op, MPI_Op op_, MPI_Comm c,
                                     MPI_Comm c_) {
  return reduceFwd(sb, dsb, rb, drb, n, T, op, 0, c, 1, "MPI_Allreduce");
}

AugResult __synthase_mpi_allreduce_aug(const void *sb, void *dsb, void *rb, void *drb, int n, int n_,
                                       MPI_Datatype T, MPI_Datatype T_, MPI_Op op, MPI_Op op_, MPI_Comm c,
                                       MPI_Comm c_) {
  return reduceAug(sb, rb, n, T, op, 0, c, 1, "MPI_Allreduce");
}

void __synthase_mpi_allreduce_rev(const void *sb, void *dsb, void *rb, void *drb, int n, int n_, MPI_Datatype T,
                                  MPI_Datatype T_, MPI_Op op, MPI_Op op_, MPI_Comm c, MPI_Comm c_, void *tape) {
  reduceRev(sb, dsb, drb, n, T, op, 0, c, 1, tape);
}

/* Gather / Scatter / Allgather. Derivatives need the same active type on both sides. */

int64_t __synthase_mpi_gather_fwd(const void *sb, const void *dsb, int sn, int sn_, MPI_Datatype ST,
                                  MPI_Datatype ST_, void *rb, void *drb, int rn, int rn_, MPI_Datatype RT,
                                  MPI_Datatype RT_, int root, int root_, MPI_Comm c, MPI_Comm c_) {
  int r = MPI_Gather(sb, sn, ST, rb, rn, RT, root, c);
  int root_rank = rankOf(c) == root;
  size_t es = pairSize(root_rank ? RT : ST, ST, "MPI_Gather");
  if (es) {
    size_t total = (size_t)commSize(c) * rn;
    const void *s = isInPlace(sb) ? MPI_IN_PLACE : dsb;
    void *z = (!isInPlace(sb) && !dsb) ? scratch(sn, es) : NULL;
    void *t = (root_rank && !drb) ? scratch(total, es) : NULL;
    MPI_Gather(z ? z : s, sn, ST, t ? t : drb, rn, RT, root, c);
    free(z), free(t);
  }
  return fwdResult(r);
}

AugResult __synthase_mpi_gather_aug(const void *sb, void *dsb, int sn, int sn_, MPI_Datatype ST, MPI_Datatype ST_,
                                    void *rb, void *drb, int rn, int rn_, MPI_Datatype RT, MPI_Datatype RT_,
                                    int root, int root_, MPI_Comm c, MPI_Comm c_) {
  return aug(NULL, MPI_Gather(sb, sn, ST, rb, rn, RT, root, c));
}

void __synthase_mpi_gather_rev(const void *sb, void *dsb, int sn, int sn_, MPI_Datatype ST, MPI_Datatype ST_,
                               void *rb, void *drb, int rn, int rn_, MPI_Datatype RT, MPI_Datatype RT_, int root,
                               int root_, MPI_Comm c, MPI_Comm c_, void *tape) {
  int me = rankOf(c), P = commSize(c);
  size_t es = pairSize(me == root ? RT : ST, ST, "MPI_Gather");
  if (!es)
    return;
  // The gathered slots' adjoints go back to their owners (a scatter); the root's gathered
  // buffer was overwritten, so its adjoint is spent.
  void *all = NULL;
  if (me == root) {
    all = copyOf(drb, (size_t)P * rn, es);
    zero(drb, (size_t)P * rn, es);
  }
  if (isInPlace(sb)) { // the root's own slot stays in place: its adjoint too
    memcpy((char *)drb + (size_t)me * rn * es, (char *)all + (size_t)me * rn * es, rn * es);
    MPI_Scatter(all, rn, RT, MPI_IN_PLACE, rn, RT, root, c);
  } else {
    void *mine = scratch(sn, es);
    MPI_Scatter(all, rn, RT, mine, sn, ST, root, c);
    accumulate(dsb, mine, sn, ST);
    free(mine);
  }
  free(all);
}

int64_t __synthase_mpi_scatter_fwd(const void *sb, const void *dsb, int sn, int sn_, MPI_Datatype ST,
                                   MPI_Datatype ST_, void *rb, void *drb, int rn, int rn_, MPI_Datatype RT,
                                   MPI_Datatype RT_, int root, int root_, MPI_Comm c, MPI_Comm c_) {
  int r = MPI_Scatter(sb, sn, ST, rb, rn, RT, root, c);
  int me = rankOf(c);
  size_t es = pairSize(RT, me == root ? ST : RT, "MPI_Scatter");
  if (es) {
    size_t total = (size_t)commSize(c) * sn;
    void *z = (me == root && !dsb) ? scratch(total, es) : NULL;
    void *t = (!isInPlace(rb) && !drb) ? scratch(rn, es) : NULL;
    MPI_Scatter(z ? z : dsb, sn, ST, isInPlace(rb) ? MPI_IN_PLACE : (t ? t : drb), rn, RT, root, c);
    free(z), free(t);
  }
  return fwdResult(r);
}

AugResult __synthase_mpi_scatter_aug(const void *sb, void *dsb, int sn, int sn_, MPI_Datatype ST, MPI_Datatype ST_,
                                     void *rb, void *drb, int rn, int rn_, MPI_Datatype RT, MPI_Datatype RT_,
                                     int root, int root_, MPI_Comm c, MPI_Comm c_) {
  return aug(NULL, MPI_Scatter(sb, sn, ST, rb, rn, RT, root, c));
}

void __synthase_mpi_scatter_rev(const void *sb, void *dsb, int sn, int sn_, MPI_Datatype ST, MPI_Datatype ST_,
                                void *rb, void *drb, int rn, int rn_, MPI_Datatype RT, MPI_Datatype RT_, int root,
                                int root_, MPI_Comm c, MPI_Comm c_, void *tape) {
  int me = rankOf(c), P = commSize(c);
  size_t es = pairSize(RT, me == root ? ST : RT, "MPI_Scatter");
  if (!es)
    return;
  void *all = me == root ? scratch((size_t)P * sn, es) : NULL;
  if (isInPlace(rb)) { // the root keeps its slot in place
    MPI_Gather(MPI_IN_PLACE, sn, ST, all, sn, ST, root, c);
    memset((char *)all + (size_t)me * sn * es, 0, sn * es);
  } else {
    void *mine = copyOf(drb, rn, es);
    zero(drb, rn, es);
    MPI_Gather(mine, rn, RT, all, sn, ST, root, c);
    free(mine);
  }
  if (me == root)
    accumulate(dsb, all, (size_t)P * sn, ST);
  free(all);
}

int64_t __synthase_mpi_allgather_fwd(const void *sb, const void *dsb, int sn, int sn_, MPI_Datatype ST,
                                     MPI_Datatype ST_, void *rb, void *drb, int rn, int rn_, MPI_Datatype RT,
                                     MPI_Datatype RT_, MPI_Comm c, MPI_Comm c_) {
  int r = MPI_Allgather(sb, sn, ST, rb, rn, RT, c);
  size_t es = pairSize(isInPlace(sb) ? RT : ST, RT, "MPI_Allgather");
  if (es) {
    size_t total = (size_t)commSize(c) * rn;
    void *z = (!isInPlace(sb) && !dsb) ? scratch(sn, es) : NULL;
    void *t = drb ? NULL : scratch(total, es);
    MPI_Allgather(isInPlace(sb) ? MPI_IN_PLACE : (z ? z : dsb), sn, ST, t ? t : drb, rn, RT, c);
    free(z), free(t);
  }
  return fwdResult(r);
}

AugResult __synthase_mpi_allgather_aug(const void *sb, void *dsb, int sn, int sn_, MPI_Datatype ST,
                                       MPI_Datatype ST_, void *rb, void *drb, int rn, int rn_, MPI_Datatype RT,
                                       MPI_Datatype RT_, MPI_Comm c, MPI_Comm c_) {
  return aug(NULL, MPI_Allgather(sb, sn, ST, rb, rn, RT, c));
}

void __synthase_mpi_allgather_rev(const void *sb, void *dsb, int sn, int sn_, MPI_Datatype ST, MPI_Datatype ST_,
                                  void *rb, void *drb, int rn, int rn_, MPI_Datatype RT, MPI_Datatype RT_, MPI_Comm c,
                                  MPI_Comm c_, void *tape) {
  int me = rankOf(c), P = commSize(c);
  size_t es = pairSize(isInPlace(sb) ? RT : ST, RT, "MPI_Allgather");
  if (!es)
    return;
  // Every rank's copy of slot r depends on rank r's input: the slots' adjoints are summed over
  // ranks and each rank takes its own (a reduce-scatter).
  size_t total = (size_t)P * rn;
  void *all = copyOf(drb, total, es);
  zero(drb, total, es);
  void *mine = scratch(rn, es);
  MPI_Reduce_scatter_block(all, mine, rn, RT, MPI_SUM, c);
  if (isInPlace(sb))
    memcpy((char *)drb + (size_t)me * rn * es, mine, rn * es);
  else
    accumulate(dsb, mine, sn, ST);
  free(all), free(mine);
}
