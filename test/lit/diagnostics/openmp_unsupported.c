// OpenMP constructs whose derivative the engine cannot build are refused at compile time with
// the construct's name, in both modes: a task inside a parallel region, a taskloop, and an
// ordered loop. Never a crash, never a silently wrong number.
// RUN: not %synthase-cc -fopenmp -O0 -DREVERSE -DTASK -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=TASK
// RUN: not %synthase-cc -fopenmp -O2 -DTASK -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=TASK
// RUN: not %synthase-cc -fopenmp -O2 -DREVERSE -DTASKLOOP -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=TASKLOOP
// RUN: not %synthase-cc -fopenmp -O0 -DTASKLOOP -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=TASKLOOP
// RUN: not %synthase-cc -fopenmp -O2 -DREVERSE -DORDERED -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=ORDERED
// RUN: not %synthase-cc -fopenmp -O0 -DORDERED -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=ORDERED
// TASK: synthase: {{.*}}the OpenMP construct 'task' is not supported in differentiated code
// TASK: hint:
// TASKLOOP: synthase: {{.*}}the OpenMP construct 'taskloop' is not supported in differentiated code
// ORDERED: synthase: {{.*}}the OpenMP construct 'ordered' is not supported in differentiated code
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
