// C++ that declares the entry points without extern "C" (as Enzyme's own C++ examples do), so
// their names are mangled (_Z17__enzyme_autodiff...): the MPI derivatives must still be
// registered for the module. MPI_Allreduce with MPI_MAX and MPI_SUM in forward and reverse mode,
// against the analytic derivative, at 2, 3 and 4 ranks.
// RUN: %synthase-cxx -std=c++17 -O0 -I%inputs %s -o %t0 %mpiflags -lm && %mpirun -np 2 %t0 && %mpirun -np 3 %t0
// RUN: %synthase-cxx -std=c++17 -O2 -I%inputs %s -o %t2 %mpiflags -lm && %mpirun -np 2 %t2 && %mpirun -np 4 %t2
// RUN: %synthase-cxx -std=c++17 -O3 -march=native -I%inputs %s -o %t3 %mpiflags -lm && %mpirun -np 3 %t3
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>
#include <cmath>
#include <vector>
#include "check.h"

template <typename R, typename... T> R __enzyme_autodiff(void *, T...);
template <typename R, typename... T> R __enzyme_fwddiff(void *, T...);

constexpr int N = 3;

static double s_of(const double *x) {
  double s = 0;
  for (int i = 0; i < N; ++i)
    s += std::sin(x[i]) * x[i];
  return s;
}

/* (max over ranks of s_r) * (sum over ranks of s_r), s_r = sum_i sin(x_i) x_i */
static void loss(const double *x, double *out) {
  double s = s_of(x), m = 0, t = 0;
  MPI_Allreduce(&s, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  *out = m * t;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  // s_r grows with the rank: the last rank holds the maximum.
  std::vector<double> x(N), dx(N, 0.0), v(N, 1.0);
  for (int i = 0; i < N; ++i)
    x[i] = 0.1 * (i + 1) + 0.3 * me;
  std::vector<double> s_all(P);
  double s = s_of(x.data());
  MPI_Allgather(&s, 1, MPI_DOUBLE, s_all.data(), 1, MPI_DOUBLE, MPI_COMM_WORLD);
  double m = s_all[P - 1], t = 0;
  for (double q : s_all)
    t += q;

  double out = 0, dout = me == 0 ? 1.0 : 0.0; // the loss seeded on rank 0 only
  __enzyme_autodiff<void>((void *)loss, enzyme_dup, x.data(), dx.data(), enzyme_dup, &out, &dout);
  double mine = 0; // this rank's d s_r along v
  for (int i = 0; i < N; ++i) {
    double ds = std::cos(x[i]) * x[i] + std::sin(x[i]);
    double want = ((me == P - 1 ? t : 0.0) + m) * ds;
    CHECK_CLOSE(dx[i], want, 1e-12, "reverse dx[%d] on rank %d of %d", i, me, P);
    mine += ds * v[i];
  }
  double ds_sum = 0, ds_max = mine;
  MPI_Allreduce(&mine, &ds_sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Bcast(&ds_max, 1, MPI_DOUBLE, P - 1, MPI_COMM_WORLD);
  double tout = 0;
  __enzyme_fwddiff<void>((void *)loss, enzyme_dup, x.data(), v.data(), enzyme_dup, &out, &tout);
  CHECK_CLOSE(tout, ds_max * t + m * ds_sum, 1e-12, "forward on rank %d of %d", me, P);
  int bad = check_report(), any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any;
}
