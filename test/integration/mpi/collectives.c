// MPI inside differentiated code, forward and reverse, against the serial computation: blocking
// point-to-point (a ring of MPI_Send/MPI_Recv), MPI_Sendrecv, MPI_Bcast, MPI_Reduce and
// MPI_Allreduce (sum; max and min by the arg-location rule; MPI_IN_PLACE), MPI_Gather,
// MPI_Scatter, MPI_Allgather, receives from MPI_ANY_SOURCE/MPI_ANY_TAG, MPI_IN_PLACE
// in every collective that has it, an inactive MPI_INT reduction, MPI_Barrier and communicator
// queries, and MPI_FLOAT data.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 %mpiflags -lm && %mpirun -np 2 %t0 && %mpirun -np 4 %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 %mpiflags -lm && %mpirun -np 2 %t2 && %mpirun -np 4 %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 %mpiflags -lm && %mpirun -np 2 %t3 && %mpirun -np 4 %t3
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 %mpiflags -lm && %mpirun -np 2 %t4 && %mpirun -np 4 %t4
#include "mpi_check.h"

#define COMM MPI_COMM_WORLD

/* A ring of blocking sends: each rank passes its last value to the right. */
static void ring(const double *x, double *p, double *out) {
  double y[N], left = 0, s = 0;
  int rank, size;
  MPI_Comm_rank(COMM, &rank);
  MPI_Comm_size(COMM, &size);
  for (int i = 0; i < N; ++i)
    y[i] = sin(p[0] * x[i]) + x[i] * x[i] * p[1];
  int r = (rank + 1) % size, l = (rank + size - 1) % size;
  if (rank == 0) {
    MPI_Send(&y[N - 1], 1, MPI_DOUBLE, r, 7, COMM);
    MPI_Recv(&left, 1, MPI_DOUBLE, l, 7, COMM, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(&left, 1, MPI_DOUBLE, l, 7, COMM, MPI_STATUS_IGNORE);
    MPI_Send(&y[N - 1], 1, MPI_DOUBLE, r, 7, COMM);
  }
  for (int i = 0; i < N; ++i)
    s += y[i] * y[i] * p[2];
  s += left * y[0];
  MPI_Allreduce(&s, out, 1, MPI_DOUBLE, MPI_SUM, COMM);
}

static double ring_serial(const double *z) {
  const double *p = z + P * N;
  double y[MAXP][N], s = 0;
  for (int b = 0; b < P; ++b)
    for (int i = 0; i < N; ++i)
      y[b][i] = sin(p[0] * z[b * N + i]) + z[b * N + i] * z[b * N + i] * p[1];
  for (int b = 0; b < P; ++b) {
    double t = 0;
    for (int i = 0; i < N; ++i)
      t += y[b][i] * y[b][i] * p[2];
    s += t + y[(b + P - 1) % P][N - 1] * y[b][0];
  }
  return s;
}

/* The parameters broadcast from rank 0, a Sendrecv ring, a Reduce to rank 0 and a Bcast back. */
static void bcast_sendrecv_reduce(const double *x, double *p, double *out) {
  int rank, size;
  MPI_Comm_rank(COMM, &rank);
  MPI_Comm_size(COMM, &size);
  MPI_Bcast(p, NP, MPI_DOUBLE, 0, COMM);
  double s = 0, got = 0, tot = 0;
  for (int i = 0; i < N; ++i)
    s += p[0] * x[i] + p[1] * x[i] * x[i];
  MPI_Status st;
  MPI_Sendrecv(&s, 1, MPI_DOUBLE, (rank + 1) % size, 3, &got, 1, MPI_DOUBLE, (rank + size - 1) % size, 3, COMM, &st);
  double t = s * got + p[2] * s;
  MPI_Reduce(&t, &tot, 1, MPI_DOUBLE, MPI_SUM, 0, COMM);
  if (rank == 0)
    tot = tot * tot;
  MPI_Bcast(&tot, 1, MPI_DOUBLE, 0, COMM);
  MPI_Barrier(COMM);
  *out = tot;
}

static double bsr_serial(const double *z) {
  const double *p = z + P * N;
  double s[MAXP], tot = 0;
  for (int b = 0; b < P; ++b) {
    s[b] = 0;
    for (int i = 0; i < N; ++i)
      s[b] += p[0] * z[b * N + i] + p[1] * z[b * N + i] * z[b * N + i];
  }
  for (int b = 0; b < P; ++b)
    tot += s[b] * s[(b + P - 1) % P] + p[2] * s[b];
  return tot * tot;
}

/* Elementwise max (Allreduce) and min (Reduce to rank 0), Allgather, Gather + Scatter back, an
 * inactive integer reduction and the loss summed in place. */
static void collectives(const double *x, double *p, double *out) {
  int rank, size;
  MPI_Comm_rank(COMM, &rank);
  MPI_Comm_size(COMM, &size);
  double m[N], mn[N], y[N], back[N], all[MAXP * N], g[MAXP * N], s = 0;
  MPI_Allreduce(x, m, N, MPI_DOUBLE, MPI_MAX, COMM);
  for (int i = 0; i < N; ++i)
    y[i] = x[i] * p[0];
  MPI_Reduce(y, mn, N, MPI_DOUBLE, MPI_MIN, 0, COMM);
  MPI_Allgather(x, N, MPI_DOUBLE, all, N, MPI_DOUBLE, COMM);
  MPI_Gather(y, N, MPI_DOUBLE, g, N, MPI_DOUBLE, 0, COMM);
  if (rank == 0)
    for (int j = 0; j < size * N; ++j)
      g[j] = g[j] * g[j] * p[1];
  MPI_Scatter(g, N, MPI_DOUBLE, back, N, MPI_DOUBLE, 0, COMM);
  int positive = x[0] > 0, npos = 0;
  MPI_Allreduce(&positive, &npos, 1, MPI_INT, MPI_SUM, COMM);
  for (int i = 0; i < N; ++i)
    s += m[i] * cos((double)i) + back[i] * x[i];
  for (int j = 0; j < size * N; ++j)
    s += all[j] * all[j] * p[2] * (j + 1);
  if (rank == 0)
    for (int i = 0; i < N; ++i)
      s += mn[i] * (i + 1);
  *out = s * (1.0 + 0.125 * npos);
  MPI_Allreduce(MPI_IN_PLACE, out, 1, MPI_DOUBLE, MPI_SUM, COMM);
}

static double coll_serial(const double *z) {
  const double *p = z + P * N;
  double s = 0;
  int npos = 0;
  for (int b = 0; b < P; ++b)
    npos += z[b * N] > 0;
  for (int i = 0; i < N; ++i) {
    double m = z[i], mn = z[i] * p[0];
    for (int b = 1; b < P; ++b) {
      m = fmax(m, z[b * N + i]);
      mn = fmin(mn, z[b * N + i] * p[0]);
    }
    s += P * m * cos((double)i) + mn * (i + 1);
  }
  for (int b = 0; b < P; ++b)
    for (int i = 0; i < N; ++i) {
      double y = z[b * N + i] * p[0];
      s += y * y * p[1] * z[b * N + i];
    }
  for (int j = 0; j < P * N; ++j)
    s += P * z[j] * z[j] * p[2] * (j + 1);
  return s * (1.0 + 0.125 * npos);
}

/* Wildcard receives: rank 0 collects one value from every rank with MPI_ANY_SOURCE/MPI_ANY_TAG
 * and files it by the status (the adjoint goes back to the actual sender); a Reduce in place at
 * the root (NULL receive buffer elsewhere) and a Bcast of the loss. */
static void wildcards(const double *x, double *p, double *out) {
  int rank, size;
  MPI_Comm_rank(COMM, &rank);
  MPI_Comm_size(COMM, &size);
  double s = 0, tot = 0, y[N];
  for (int i = 0; i < N; ++i)
    s += x[i] * x[i] * p[0] + sin(x[i]);
  if (rank == 0) {
    double w[MAXP];
    w[0] = s;
    for (int k = 1; k < size; ++k) {
      double v;
      MPI_Status st;
      MPI_Recv(&v, 1, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, COMM, &st);
      w[st.MPI_SOURCE] = v * (1 + st.MPI_TAG);
    }
    for (int b = 0; b < size; ++b)
      tot += w[b] * w[b] * p[1];
  } else {
    MPI_Send(&s, 1, MPI_DOUBLE, 0, rank, COMM);
  }
  for (int i = 0; i < N; ++i)
    y[i] = x[i] * p[2];
  if (rank == 0)
    MPI_Reduce(MPI_IN_PLACE, y, N, MPI_DOUBLE, MPI_SUM, 0, COMM);
  else
    MPI_Reduce(y, NULL, N, MPI_DOUBLE, MPI_SUM, 0, COMM);
  if (rank == 0)
    for (int i = 0; i < N; ++i)
      tot += y[i] * y[i];
  MPI_Bcast(&tot, 1, MPI_DOUBLE, 0, COMM);
  *out = tot;
}

static double wildcards_serial(const double *z) {
  const double *p = z + P * N;
  double tot = 0;
  for (int b = 0; b < P; ++b) {
    double s = 0;
    for (int i = 0; i < N; ++i)
      s += z[b * N + i] * z[b * N + i] * p[0] + sin(z[b * N + i]);
    tot += s * (1 + b) * s * (1 + b) * p[1];
  }
  for (int i = 0; i < N; ++i) {
    double y = 0;
    for (int b = 0; b < P; ++b)
      y += z[b * N + i] * p[2];
    tot += y * y;
  }
  return tot;
}

/* MPI_IN_PLACE in the gathers: Allgather in place, Gather and Scatter in place at the root. */
static void in_place(const double *x, double *p, double *out) {
  int rank, size;
  MPI_Comm_rank(COMM, &rank);
  MPI_Comm_size(COMM, &size);
  double all[MAXP * N], g[MAXP * N], mine[N], s = 0;
  for (int i = 0; i < N; ++i)
    all[rank * N + i] = x[i] * p[0];
  MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, N, MPI_DOUBLE, COMM);
  for (int i = 0; i < N; ++i)
    mine[i] = sin(x[i]) * p[1];
  if (rank == 0) {
    for (int i = 0; i < N; ++i)
      g[i] = mine[i];
    MPI_Gather(MPI_IN_PLACE, N, MPI_DOUBLE, g, N, MPI_DOUBLE, 0, COMM);
    for (int j = 0; j < size * N; ++j)
      g[j] = g[j] * g[j] + all[j] * p[2];
    MPI_Scatter(g, N, MPI_DOUBLE, MPI_IN_PLACE, N, MPI_DOUBLE, 0, COMM);
    for (int i = 0; i < N; ++i)
      mine[i] = g[i];
  } else {
    MPI_Gather(mine, N, MPI_DOUBLE, NULL, 0, MPI_DOUBLE, 0, COMM);
    MPI_Scatter(NULL, 0, MPI_DOUBLE, mine, N, MPI_DOUBLE, 0, COMM);
  }
  for (int i = 0; i < N; ++i)
    s += mine[i] * x[i];
  for (int j = 0; j < size * N; ++j)
    s += all[j] * all[j] * (j % 3);
  MPI_Allreduce(&s, out, 1, MPI_DOUBLE, MPI_SUM, COMM);
}

static double in_place_serial(const double *z) {
  const double *p = z + P * N;
  double s = 0;
  for (int j = 0; j < P * N; ++j) {
    double a = z[j] * p[0], m = sin(z[j]) * p[1];
    s += (m * m + a * p[2]) * z[j] + P * a * a * (j % 3);
  }
  return s;
}

/* MPI_FLOAT carries derivatives too: sum over ranks of x^2 in float. */
static float float_loss(const float *x) {
  float s = 0, tot = 0;
  for (int i = 0; i < N; ++i)
    s += x[i] * x[i];
  MPI_Allreduce(&s, &tot, 1, MPI_FLOAT, MPI_SUM, COMM);
  return tot;
}

float __enzyme_autodiff_f(void *, ...) __asm__("__enzyme_autodiff");
float __enzyme_fwddiff_f(void *, ...) __asm__("__enzyme_fwddiff");

static void check_float(void) {
  float x[N], dx[N] = {0}, v[N];
  for (int i = 0; i < N; ++i)
    x[i] = 0.25f * (float)(i + 1 + me), v[i] = 1.0f;
  __enzyme_autodiff_f((void *)float_loss, enzyme_dup, x, dx);
  float t = __enzyme_fwddiff_f((void *)float_loss, enzyme_dup, x, v);
  double want = 0;
  for (int i = 0; i < N; ++i) {
    CHECK_CLOSE(dx[i], 2.0 * P * x[i], 1e-6, "float: reverse dx[%d] on rank %d (every rank seeds its copy of the sum)", i, me);
    want += 2.0 * x[i];
  }
  CHECK_CLOSE(t, sum_ranks(want), 1e-5, "float: forward on rank %d", me);
}

DEFINE_CHECK_KERNEL(ring, ring_serial)
DEFINE_CHECK_KERNEL(bcast_sendrecv_reduce, bsr_serial)
DEFINE_CHECK_KERNEL(collectives, coll_serial)
DEFINE_CHECK_KERNEL(wildcards, wildcards_serial)
DEFINE_CHECK_KERNEL(in_place, in_place_serial)

int main(int argc, char **argv) {
  mpi_start(&argc, &argv);
  check_ring("ring", 1e-6);
  check_bcast_sendrecv_reduce("bcast_sendrecv_reduce", 1e-6);
  check_collectives("collectives", 1e-6);
  check_wildcards("wildcards", 1e-6);
  check_in_place("in place", 1e-6);
  check_float();
  return mpi_report();
}
