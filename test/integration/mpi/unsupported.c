// MPI that has no derivative is refused at compile time, naming the call: one-sided
// communication, a reduction with an operation other than MPI_SUM/MAX/MIN, and a custom
// (MPI_Op_create) or derived-datatype call inside differentiated code, in both modes.
// RUN: not %synthase-cc -O0 -DPUT -c %s -o /dev/null %mpiflags 2>&1 | FileCheck %s --check-prefix=PUT
// RUN: not %synthase-cc -O2 -DPROD -c %s -o /dev/null %mpiflags 2>&1 | FileCheck %s --check-prefix=PROD
// RUN: not %synthase-cc -O2 -DPROD -DFWD -c %s -o /dev/null %mpiflags 2>&1 | FileCheck %s --check-prefix=PROD
// RUN: not %synthase-cc -O0 -DTYPE -c %s -o /dev/null %mpiflags 2>&1 | FileCheck %s --check-prefix=TYPE
// RUN: not %synthase-cc -O0 -DSCAN -DFWD -c %s -o /dev/null %mpiflags 2>&1 | FileCheck %s --check-prefix=SCAN
// PUT: error: {{.*}}one-sided MPI communication (MPI_Put) has no derivative
// PUT: hint: exchange the data with MPI_Send/MPI_Recv
// PROD: error: {{.*}}cannot differentiate MPI_Allreduce with MPI_PROD: only MPI_SUM, MPI_MAX and MPI_MIN reductions have derivatives
// TYPE: error: {{.*}}derived MPI datatypes (MPI_Type_contiguous) have no derivative
// SCAN: error: {{.*}}MPI call MPI_Scan has no derivative
// An operation or a datatype known only at run time is checked by the runtime, which stops the
// program naming it:
// RUN: %synthase-cc -O2 -DRUNTIME_OP %s -o %t1 %mpiflags && not %mpirun -np 2 %t1 2>&1 | FileCheck %s --check-prefix=RTOP
// RUN: %synthase-cc -O2 -DRUNTIME_TYPE %s -o %t2 %mpiflags && not %mpirun -np 2 %t2 2>&1 | FileCheck %s --check-prefix=RTTYPE
// RTOP: synthase: the derivative of MPI_Allreduce: only MPI_SUM, MPI_MAX and MPI_MIN reductions have derivatives
// RUN: %synthase-cc -O2 -DRUNTIME_WAIT %s -o %t3 %mpiflags && not %mpirun -np 2 %t3 2>&1 | FileCheck %s --check-prefix=RTWAIT
// RTTYPE: synthase: the derivative of an MPI call in differentiated code: derived datatypes carry no derivative
// RTWAIT: synthase: the derivative of MPI_Isend: its request was not completed by MPI_Wait/MPI_Waitall inside the differentiated code
#include <mpi.h>
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

double loss(double *x, double *win_mem) {
  double s = x[0] * x[0], r = 0;
#if defined(PUT)
  MPI_Win w;
  MPI_Win_create(win_mem, 8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &w);
  MPI_Put(&s, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, w);
  r = win_mem[0];
#elif defined(PROD)
  MPI_Allreduce(&s, &r, 1, MPI_DOUBLE, MPI_PROD, MPI_COMM_WORLD);
#elif defined(TYPE)
  MPI_Datatype t;
  MPI_Type_contiguous(2, MPI_DOUBLE, &t);
  MPI_Bcast(x, 1, t, 0, MPI_COMM_WORLD);
  r = x[0] * s;
#elif defined(SCAN)
  MPI_Scan(&s, &r, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
#endif
  return r;
}

#if defined(RUNTIME_OP) || defined(RUNTIME_TYPE) || defined(RUNTIME_WAIT)
static void mulop(void *in, void *inout, int *n, MPI_Datatype *t) {
  for (int i = 0; i < *n; ++i)
    ((double *)inout)[i] *= ((double *)in)[i];
}

static double runtime_loss(double *x, MPI_Op op, MPI_Datatype t) {
  double s = x[0] * x[0], r[2] = {0, 0};
  MPI_Allreduce(&s, r, 1, t, op, MPI_COMM_WORLD);
  return r[0];
}

/* A send to itself whose request the caller completes, after the derivative. */
static MPI_Request late;
static double runtime_isend(double *x) {
  int me;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Isend(x, 1, MPI_DOUBLE, me, 0, MPI_COMM_WORLD, &late);
  return x[0] * x[0];
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  double x[2] = {1.5, 0}, dx[2] = {0, 0};
#ifdef RUNTIME_WAIT
  int me;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  __enzyme_autodiff((void *)runtime_isend, enzyme_dup, x, dx);
  MPI_Recv(x + 1, 1, MPI_DOUBLE, me, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Wait(&late, MPI_STATUS_IGNORE);
  MPI_Finalize();
  return 0;
#endif
  MPI_Op op = MPI_SUM;
  MPI_Datatype t = MPI_DOUBLE;
#ifdef RUNTIME_OP
  MPI_Op_create(mulop, 1, &op);
#else
  MPI_Type_contiguous(1, MPI_DOUBLE, &t);
  MPI_Type_commit(&t);
#endif
  __enzyme_autodiff((void *)runtime_loss, enzyme_dup, x, dx, enzyme_const, op, enzyme_const, t);
  MPI_Finalize();
  return 0;
}
#endif

double g(double *x, double *dx, double *w, double *dw) {
#ifdef FWD
  return __enzyme_fwddiff((void *)loss, enzyme_dup, x, dx, enzyme_dup, w, dw);
#else
  return __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_dup, w, dw);
#endif
}
