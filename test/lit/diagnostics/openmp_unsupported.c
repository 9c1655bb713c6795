// OpenMP constructs whose derivative the engine cannot build are refused at compile time with
// the construct's name, in both modes: a task inside a parallel region, a taskloop, and an
// ordered loop. In reverse mode, a max reduction and a critical section that multiplies a shared
// value (their reverse would depend on the order the threads entered; forward mode compiles
// them). Never a crash, never a silently wrong number.
// RUN: not %synthase-cc -fopenmp -O0 -DREVERSE -DTASK -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=TASK
// RUN: not %synthase-cc -fopenmp -O2 -DTASK -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=TASK
// RUN: not %synthase-cc -fopenmp -O2 -DREVERSE -DTASKLOOP -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=TASKLOOP
// RUN: not %synthase-cc -fopenmp -O0 -DTASKLOOP -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=TASKLOOP
// RUN: not %synthase-cc -fopenmp -O2 -DREVERSE -DORDERED -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=ORDERED
// RUN: not %synthase-cc -fopenmp -O0 -DORDERED -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=ORDERED
// RUN: not %synthase-cc -fopenmp -O2 -DREVERSE -DREDMAX -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REDMAX
// RUN: not %synthase-cc -fopenmp -O0 -DREVERSE -DCRITMUL -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=CRITMUL
// RUN: %synthase-cc -fopenmp -O2 -DREDMAX -c %s -o /dev/null
// RUN: %synthase-cc -fopenmp -O2 -DCRITMUL -c %s -o /dev/null
// TASK: synthase: {{.*}}the OpenMP construct 'task' is not supported in differentiated code
// TASK: hint:
// TASKLOOP: synthase: {{.*}}the OpenMP construct 'taskloop' is not supported in differentiated code
// ORDERED: synthase: {{.*}}the OpenMP construct 'ordered' is not supported in differentiated code
// REDMAX: synthase: {{.*}}reverse mode: the OpenMP construct 'reduction' with an operator other than + (max, min, *) is not supported
// CRITMUL: synthase: {{.*}}reverse mode: this OpenMP critical section updates shared data other than by adding to it
// CRITMUL: hint: write the update as s += v
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

void f(const double *x, double *y, int n) {
#if defined(TASK)
#pragma omp parallel
#pragma omp single
  for (int i = 0; i < n; ++i) {
#pragma omp task firstprivate(i)
    y[i] = x[i] * x[i];
  }
#elif defined(TASKLOOP)
#pragma omp parallel
#pragma omp single
#pragma omp taskloop
  for (int i = 0; i < n; ++i)
    y[i] = x[i] * x[i];
#elif defined(REDMAX)
  double m = -1e300;
#pragma omp parallel for reduction(max : m)
  for (int i = 0; i < n; ++i)
    m = x[i] > m ? x[i] : m;
  y[0] = m;
#elif defined(CRITMUL)
#pragma omp parallel for
  for (int i = 0; i < n; ++i) {
#pragma omp critical
    y[0] *= x[i];
  }
#else
#pragma omp parallel for ordered
  for (int i = 0; i < n; ++i) {
#pragma omp ordered
    y[i] = x[i] * x[i];
  }
#endif
}

void run(const double *x, double *dx, double *y, double *dy, int n) {
#ifdef REVERSE
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, n);
#else
  __enzyme_fwddiff((void *)f, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, n);
#endif
}
