// A non-blocking halo exchange inside differentiated code: a periodic 1-D explicit diffusion
// (with a cubic reaction term) over a few time steps, halos by MPI_Irecv/MPI_Isend completed by
// MPI_Waitall (and, in a second kernel, one MPI_Wait per request), the loss summed by
// MPI_Allreduce. Forward and reverse mode against the serial solver (finite differences and
// reverse mode of the serial twin). The requests live in one local array reused every step.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 %mpiflags -lm && %mpirun -np 2 %t0 && %mpirun -np 4 %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 %mpiflags -lm && %mpirun -np 2 %t2 && %mpirun -np 4 %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 %mpiflags -lm && %mpirun -np 2 %t3 && %mpirun -np 4 %t3
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 %mpiflags -lm && %mpirun -np 2 %t4 && %mpirun -np 4 %t4
#define N 6
#include "mpi_check.h"

#define STEPS 4
#define COMM MPI_COMM_WORLD

static double react(double u, const double *p, double x) { return -0.1 * p[1] * u * u * u + p[2] * x; }

static void heat(const double *x, double *p, double *out, int waitall) {
  int rank, size;
  MPI_Comm_rank(COMM, &rank);
  MPI_Comm_size(COMM, &size);
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  double u[N + 2], un[N + 2], s = 0;
  for (int i = 0; i < N; ++i)
    u[i + 1] = x[i];
  MPI_Request rq[4];
  for (int t = 0; t < STEPS; ++t) {
    MPI_Irecv(&u[0], 1, MPI_DOUBLE, left, 0, COMM, &rq[0]);
    MPI_Irecv(&u[N + 1], 1, MPI_DOUBLE, right, 1, COMM, &rq[1]);
    MPI_Isend(&u[N], 1, MPI_DOUBLE, right, 0, COMM, &rq[2]);
    MPI_Isend(&u[1], 1, MPI_DOUBLE, left, 1, COMM, &rq[3]);
    if (waitall) {
      MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
    } else {
      for (int k = 0; k < 4; ++k)
        MPI_Wait(&rq[k], MPI_STATUS_IGNORE);
    }
    for (int i = 1; i <= N; ++i)
      un[i] = u[i] + p[0] * (u[i - 1] - 2 * u[i] + u[i + 1]) + react(u[i], p, x[i - 1]);
    for (int i = 1; i <= N; ++i)
      u[i] = un[i];
  }
  for (int i = 1; i <= N; ++i)
    s += u[i] * u[i];
  MPI_Allreduce(&s, out, 1, MPI_DOUBLE, MPI_SUM, COMM);
}

static void heat_waitall(const double *x, double *p, double *out) { heat(x, p, out, 1); }
static void heat_wait(const double *x, double *p, double *out) { heat(x, p, out, 0); }

static double heat_serial(const double *z) {
  int G = P * N;
  const double *p = z + G;
  double u[MAXP * N], un[MAXP * N], s = 0;
  for (int j = 0; j < G; ++j)
    u[j] = z[j];
  for (int t = 0; t < STEPS; ++t) {
    for (int j = 0; j < G; ++j)
      un[j] = u[j] + p[0] * (u[(j + G - 1) % G] - 2 * u[j] + u[(j + 1) % G]) + react(u[j], p, z[j]);
    for (int j = 0; j < G; ++j)
      u[j] = un[j];
  }
  for (int j = 0; j < G; ++j)
    s += u[j] * u[j];
  return s;
}

DEFINE_CHECK_KERNEL(heat_waitall, heat_serial)
DEFINE_CHECK_KERNEL(heat_wait, heat_serial)

int main(int argc, char **argv) {
  mpi_start(&argc, &argv);
  check_heat_waitall("halo (MPI_Waitall)", 1e-6);
  check_heat_wait("halo (MPI_Wait)", 1e-6);
  return mpi_report();
}
