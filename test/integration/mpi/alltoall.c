// MPI_Alltoall and MPI_Alltoallv inside differentiated code, forward and reverse, against the
// serial computation (finite differences and reverse mode of the serial twin): a plain
// all-to-all of computed blocks, one in place, an all-to-allv whose send blocks overlap (an
// element sent to two ranks gets both adjoints) and whose receive buffer has slots no block
// covers (their values, and derivatives, stay the rank's own), and an all-to-allv in place.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 %mpiflags -lm && %mpirun -np 2 %t0 && %mpirun -np 3 %t0 && %mpirun -np 4 %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 %mpiflags -lm && %mpirun -np 2 %t2 && %mpirun -np 4 %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 %mpiflags -lm && %mpirun -np 3 %t3
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 %mpiflags -lm && %mpirun -np 2 %t4 && %mpirun -np 4 %t4
#include "mpi_check.h"

#define COMM MPI_COMM_WORLD
#define K 2 /* block of the plain all-to-all */

/* block d of rank s's send buffer: k-th value */
static double a2a_send(const double *xs, const double *p, int d, int k) {
  return xs[(d + k) % N] * p[0] + sin(xs[k]);
}
static double a2a_inplace(const double *xs, const double *p, int j) { return cos(xs[j % N]) * p[2]; }

static void a2a(const double *x, double *p, double *out) {
  int rank, size;
  MPI_Comm_rank(COMM, &rank);
  MPI_Comm_size(COMM, &size);
  double sb[MAXP * K], rb[MAXP * K], buf[MAXP * K], s = 0;
  for (int d = 0; d < size; ++d)
    for (int k = 0; k < K; ++k)
      sb[d * K + k] = a2a_send(x, p, d, k);
  MPI_Alltoall(sb, K, MPI_DOUBLE, rb, K, MPI_DOUBLE, COMM);
  for (int j = 0; j < size * K; ++j)
    buf[j] = a2a_inplace(x, p, j);
  MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, K, MPI_DOUBLE, COMM);
  for (int j = 0; j < size * K; ++j)
    s += rb[j] * rb[j] * (j + 1 + rank) * p[1] + buf[j] * x[j % N];
  MPI_Allreduce(&s, out, 1, MPI_DOUBLE, MPI_SUM, COMM);
}

static double a2a_serial(const double *z) {
  const double *p = z + P * N;
  double s = 0;
  for (int r = 0; r < P; ++r)
    for (int src = 0; src < P; ++src)
      for (int k = 0; k < K; ++k) {
        double rb = a2a_send(z + src * N, p, r, k), buf = a2a_inplace(z + src * N, p, r * K + k);
        int j = src * K + k;
        s += rb * rb * (j + 1 + r) * p[1] + buf * z[r * N + j % N];
      }
  return s;
}

/* Alltoallv: rank r sends c(r, d) in {1, 2} values to rank d from offset d (blocks overlap);
 * rank r receives rank s's block at 3s (slot 3s+1 only when the block has two values, slot 3s+2
 * never). */
static int cnt(int r, int d) { return 1 + (r + d) % 2; }
static double v_send(const double *xs, const double *p, int i) {
  return xs[i % N] * p[0] + xs[(i + 1) % N] * xs[(i + 1) % N];
}
static double v_own(const double *xs, const double *p, int j) { return xs[j % N] * p[1]; }
static double v_inplace(const double *xs, const double *p, int j) { return sin(xs[j % N]) * p[2]; }

static void a2av(const double *x, double *p, double *out) {
  int rank, size;
  MPI_Comm_rank(COMM, &rank);
  MPI_Comm_size(COMM, &size);
  double sb[MAXP + 1], rb[3 * MAXP], buf[3 * MAXP], s = 0;
  int sc[MAXP], sd[MAXP], rc[MAXP], rd[MAXP];
  for (int i = 0; i <= size; ++i)
    sb[i] = v_send(x, p, i);
  for (int j = 0; j < 3 * size; ++j) {
    rb[j] = v_own(x, p, j);
    buf[j] = v_inplace(x, p, j);
  }
  for (int d = 0; d < size; ++d) {
    sc[d] = cnt(rank, d), sd[d] = d;
    rc[d] = cnt(d, rank), rd[d] = 3 * d;
  }
  MPI_Alltoallv(sb, sc, sd, MPI_DOUBLE, rb, rc, rd, MPI_DOUBLE, COMM);
  /* the program reuses the count arrays before the reverse sweep runs */
  for (int d = 0; d < size; ++d)
    sc[d] = rc[d] = 0;
  for (int d = 0; d < size; ++d)
    rc[d] = cnt(rank, d); /* symmetric counts: in place needs them */
  MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, buf, rc, rd, MPI_DOUBLE, COMM);
  for (int j = 0; j < 3 * size; ++j)
    s += rb[j] * rb[j] * (j + 1) + buf[j] * buf[j] * (j % 4 + 1);
  *out = s;
  MPI_Allreduce(MPI_IN_PLACE, out, 1, MPI_DOUBLE, MPI_SUM, COMM);
}

static double a2av_serial(const double *z) {
  const double *p = z + P * N;
  double s = 0;
  for (int r = 0; r < P; ++r)
    for (int j = 0; j < 3 * P; ++j) {
      int src = j / 3, k = j % 3;
      double rb = k < cnt(src, r) ? v_send(z + src * N, p, r + k) : v_own(z + r * N, p, j);
      double buf = k < cnt(r, src) ? v_inplace(z + src * N, p, 3 * r + k) : v_inplace(z + r * N, p, j);
      s += rb * rb * (j + 1) + buf * buf * (j % 4 + 1);
    }
  return s;
}

DEFINE_CHECK_KERNEL(a2a, a2a_serial)
DEFINE_CHECK_KERNEL(a2av, a2av_serial)

int main(int argc, char **argv) {
  mpi_start(&argc, &argv);
  check_a2a("alltoall", 1e-6);
  check_a2av("alltoallv", 1e-6);
  return mpi_report();
}
