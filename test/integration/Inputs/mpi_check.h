/* Harness for the MPI integration programs (test/integration/mpi). A kernel
 *   void dist(const double *x, double *p, double *out)
 * runs on every rank with its N local values x (a slice of a global vector) and its copy of NP
 * parameters p, and leaves the global loss in *out. Its serial twin
 *   double serial(const double *z)         z = [the P*N global values, the NP parameters]
 * computes the same loss in one process. DEFINE_CHECK_KERNEL(dist, serial) defines
 * check_<dist>(name, tol), which compares, on every rank:
 *   - the loss with the serial loss;
 *   - reverse mode (the loss seeded on rank 0 only, so the gradient is d loss / d x): each
 *     rank's slice of dx, and dp summed over ranks, with the serial gradient by central finite
 *     differences and by reverse mode on the serial twin;
 *   - forward mode along a global direction with the same directional derivative, and with the
 *     reverse gradient dotted with the direction (summed over ranks).
 */
#include "check.h"
#include <mpi.h>

#ifndef N
#define N 5
#endif
#define NP 3
#define MAXP 8

static int P, me;

typedef void (*dist_fn)(const double *, double *, double *);
typedef double (*serial_fn)(const double *);

static double serial_tramp(const double *z, void *f) { return (*(serial_fn *)f)(z); }

static double sum_ranks(double v) {
  double s;
  MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return s;
}

/* The entry points need the kernel known at compile time: one checker per kernel. */
#define DEFINE_CHECK_KERNEL(dist, serial)                                                                  \
  static void check_##dist(const char *name, double tol) { \
  int G = P * N, Z = G + NP;                                                                                   \
  double z[MAXP * N + NP], v[MAXP * N + NP], gfd[MAXP * N + NP], gad[MAXP * N + NP];                           \
  check_seed(11);                                                                                              \
  check_fill(z, Z, -1.0, 1.0);                                                                                 \
  check_fill(v, Z, -1.0, 1.0);                                                                                 \
  double x[N], p[NP], dx[N] = {0}, dp[NP] = {0}, out = 0, dout = me == 0 ? 1.0 : 0.0;                          \
  memcpy(x, z + me * N, sizeof x);                                                                             \
  memcpy(p, z + G, sizeof p);                                                                                  \
  dist(x, p, &out);                                                                                            \
  CHECK_CLOSE(out, serial(z), 1e-12, "%s: loss on rank %d of %d", name, me, P);                                \
                                                                                                               \
  serial_fn sf = serial;                                                                                       \
  check_fd_grad(serial_tramp, &sf, z, Z, gfd);                                                                 \
  memset(gad, 0, sizeof gad);                                                                                  \
  __enzyme_autodiff((void *)serial, enzyme_dup, z, gad);                                                       \
                                                                                                               \
  memcpy(p, z + G, sizeof p);                                                                                  \
  __enzyme_autodiff((void *)dist, enzyme_dup, x, dx, enzyme_dup, p, dp, enzyme_dup, &out, &dout);              \
  for (int i = 0; i < N; ++i) {                                                                                \
    CHECK_CLOSE(dx[i], gfd[me * N + i], tol, "%s: reverse dx[%d] on rank %d of %d vs FD", name, i, me, P);     \
    CHECK_CLOSE(dx[i], gad[me * N + i], 1e-11, "%s: reverse dx[%d] on rank %d of %d vs serial", name, i, me, P); \
  }                                                                                                            \
  for (int k = 0; k < NP; ++k) {                                                                               \
    double s = sum_ranks(dp[k]);                                                                               \
    CHECK_CLOSE(s, gfd[G + k], tol, "%s: reverse dp[%d] summed over %d ranks vs FD", name, k, P);              \
    CHECK_CLOSE(s, gad[G + k], 1e-11, "%s: reverse dp[%d] summed over %d ranks vs serial", name, k, P);        \
  }                                                                                                            \
                                                                                                               \
  double vx[N], vp[NP], tout = 0;                                                                              \
  memcpy(x, z + me * N, sizeof x);                                                                             \
  memcpy(p, z + G, sizeof p);                                                                                  \
  memcpy(vx, v + me * N, sizeof vx);                                                                           \
  memcpy(vp, v + G, sizeof vp);                                                                                \
  __enzyme_fwddiff((void *)dist, enzyme_dup, x, vx, enzyme_dup, p, vp, enzyme_dup, &out, &tout);               \
  double local = check_dot(dx, vx, N) + check_dot(dp, vp, NP);                                                 \
  CHECK_CLOSE(tout, check_dot(gfd, v, Z), tol, "%s: forward on rank %d of %d vs FD", name, me, P);             \
  CHECK_CLOSE(tout, sum_ranks(local), 1e-11, "%s: forward vs reverse on rank %d of %d", name, me, P);          \
}

static int mpi_report(void) {
  int bad = check_report(), any;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any;
}

static void mpi_start(int *argc, char ***argv) {
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  if (P > MAXP) {
    fprintf(stderr, "at most %d ranks\n", MAXP);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
}
