// Threads started inside a differentiated function are refused with a message that says so
// (not "atomic operations" or "external function pthread_create"), in both modes.
// RUN: not %synthase-cc -O1 -c %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: synthase: in function 'work'{{.*}}threads started inside a differentiated function (std::thread::scope / spawn, pthread_create) are not supported
// CHECK: hint: differentiate the work each thread does
#include <pthread.h>
#include <math.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

struct Job { double *out; const double *in; };
static void *run(void *p) {
  struct Job *j = p;
  j->out[0] = sin(j->in[0]);
  return 0;
}
double work(const double *x, double *y) {
  pthread_t t;
  struct Job j = {y, x};
  pthread_create(&t, 0, run, &j);
  pthread_join(t, 0);
  return y[0] * x[1];
}
double dwork(const double *x, double *dx, double *y, double *dy) {
  return __enzyme_autodiff((void *)work, enzyme_dup, x, dx, enzyme_dup, y, dy);
}
double twork(const double *x, double *dx, double *y, double *dy) {
  return __enzyme_fwddiff((void *)work, enzyme_dup, x, dx, enzyme_dup, y, dy);
}
