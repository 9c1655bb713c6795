// A distributed 1-D heat solver differentiated by Synthase (issue 18).
//
// The rod [0, 1] is split into equal slices, one per MPI rank; each explicit time step exchanges
// one halo value with each neighbour (MPI_Irecv/MPI_Isend/MPI_Waitall, MPI_PROC_NULL at the
// ends, where the temperature stays 0), and the loss, the squared distance to a target profile,
// is summed by MPI_Allreduce. Reverse mode gives the loss's gradient with respect to the initial
// field (each rank its own slice) and to the diffusion coefficient kappa in one sweep that runs
// the communication backwards; forward mode gives d loss / d kappa.
//
//   mpirun -np 4 ./heat              check the derivatives against finite differences
//   mpirun -np 4 ./heat bench N T    time the solver and its gradient (N cells, T steps)
//
// Build: synthase-cc -O2 heat.c -o heat $(mpicc --showme:compile) $(mpicc --showme:link) -lm
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);

static double target(double x) { return 0.25 * sin(3.14159265358979 * x); }

/// Runs `steps` explicit steps from u0 (this rank's n cells, the first at global index off of
/// ng) and leaves the global loss in *loss on every rank.
static void solve(const double *u0, const double *kappa, double *loss, int n, int off, int ng, int steps) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int left = rank > 0 ? rank - 1 : MPI_PROC_NULL, right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
  double *u = malloc(sizeof(double) * (n + 2)), *un = malloc(sizeof(double) * (n + 2));
  double h = 1.0 / (ng + 1), r = *kappa / (h * h) * 0.2 * h * h; // dt = 0.2 h^2
  u[0] = u[n + 1] = 0;
  for (int i = 0; i < n; ++i)
    u[i + 1] = u0[i];
  MPI_Request rq[4];
  for (int t = 0; t < steps; ++t) {
    MPI_Irecv(&u[0], 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &rq[0]);
    MPI_Irecv(&u[n + 1], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &rq[1]);
    MPI_Isend(&u[n], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &rq[2]);
    MPI_Isend(&u[1], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &rq[3]);
    MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
    for (int i = 1; i <= n; ++i)
      un[i] = u[i] + r * (u[i - 1] - 2 * u[i] + u[i + 1]);
    for (int i = 1; i <= n; ++i)
      u[i] = un[i];
  }
  double s = 0;
  for (int i = 1; i <= n; ++i) {
    double d = u[i] - target((off + i) * h);
    s += d * d * h;
  }
  free(u);
  free(un);
  MPI_Allreduce(&s, loss, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

static double sum_ranks(double v) {
  double s;
  MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return s;
}

static void gradient(const double *u0, double *du0, const double *kappa, double *dkappa, int n, int off, int ng,
                     int steps) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double loss = 0, dloss = rank == 0; // one seed: the loss is the same value on every rank
  __enzyme_autodiff((void *)solve, enzyme_dup, u0, du0, enzyme_dup, kappa, dkappa, enzyme_dup, &loss, &dloss,
                    enzyme_const, n, enzyme_const, off, enzyme_const, ng, enzyme_const, steps);
}

static double now(void) { return MPI_Wtime(); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int bench = argc > 1 && !strcmp(argv[1], "bench");
  int ng = bench && argc > 2 ? atoi(argv[2]) : 48, steps = bench && argc > 3 ? atoi(argv[3]) : 60;
  int n = ng / size, off = rank * n;
  if (rank == size - 1)
    n = ng - off;
  double *u0 = malloc(sizeof(double) * n), *du0 = calloc(n, sizeof(double)), kappa = 0.9, dkappa = 0;
  for (int i = 0; i < n; ++i) {
    double x = (off + i + 1.0) / (ng + 1);
    u0[i] = x * (1 - x) * (1 + 0.5 * cos(7 * x));
  }
  int bad = 0;
  if (!bench) {
    double loss;
    solve(u0, &kappa, &loss, n, off, ng, steps);
    gradient(u0, du0, &kappa, &dkappa, n, off, ng, steps);
    double dk = sum_ranks(dkappa); // each rank's copy of kappa
    // Finite differences of the distributed solver itself.
    double e = 1e-6, lp, lm, k2 = kappa + e;
    solve(u0, &k2, &lp, n, off, ng, steps);
    k2 = kappa - e;
    solve(u0, &k2, &lm, n, off, ng, steps);
    double fdk = (lp - lm) / (2 * e);
    // Forward mode: d loss / d kappa.
    double one = 1, tloss = 0, zero_u[4096] = {0};
    __enzyme_fwddiff((void *)solve, enzyme_dup, u0, zero_u, enzyme_dup, &kappa, &one, enzyme_dup, &loss, &tloss,
                     enzyme_const, n, enzyme_const, off, enzyme_const, ng, enzyme_const, steps);
    bad |= fabs(dk - fdk) > 1e-5 * fabs(fdk) + 1e-12 || fabs(tloss - dk) > 1e-10 * fabs(dk) + 1e-15;
    if (rank == 0)
      printf("ranks %d  loss %.12f\n  d loss/d kappa  reverse %.10e  forward %.10e  FD %.10e\n", size, loss, dk,
             tloss, fdk);
    for (int g = 1; g < ng; g += ng / 3) { // a few entries of the initial field, perturbed by their owner
      int owner = g / (ng / size) < size ? g / (ng / size) : size - 1;
      double dg = sum_ranks(rank == owner ? du0[g - off] : 0.0);
      double *up = malloc(sizeof(double) * n);
      memcpy(up, u0, sizeof(double) * n);
      if (rank == owner)
        up[g - off] += e;
      solve(up, &kappa, &lp, n, off, ng, steps);
      if (rank == owner)
        up[g - off] -= 2 * e;
      solve(up, &kappa, &lm, n, off, ng, steps);
      free(up);
      double fd = (lp - lm) / (2 * e);
      bad |= fabs(dg - fd) > 1e-5 * fabs(fd) + 1e-12;
      if (rank == 0)
        printf("  d loss/d u0[%2d] reverse %.10e  FD %.10e\n", g, dg, fd);
    }
    if (rank == 0)
      printf(bad ? "MISMATCH\n" : "derivatives agree\n");
  } else {
    double loss, tp = 1e30, tg = 1e30;
    for (int rep = 0; rep < 3; ++rep) {
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = now();
      solve(u0, &kappa, &loss, n, off, ng, steps);
      MPI_Barrier(MPI_COMM_WORLD);
      double t1 = now();
      memset(du0, 0, sizeof(double) * n);
      dkappa = 0;
      gradient(u0, du0, &kappa, &dkappa, n, off, ng, steps);
      MPI_Barrier(MPI_COMM_WORLD);
      double t2 = now();
      tp = fmin(tp, t1 - t0), tg = fmin(tg, t2 - t1);
    }
    if (rank == 0)
      printf("%d %.6f %.6f\n", size, tp, tg);
  }
  free(u0);
  free(du0);
  MPI_Finalize();
  return bad;
}
