// A thread-local global used as a workspace inside differentiated code, with gradients computed
// on four threads at once: its shadow must be thread-local too, or the threads' adjoints mix.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm -lpthread && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm -lpthread && %t2
#include "check.h"
#include <pthread.h>

#define N 64
static _Thread_local double work[N];

static double f(const double *x, int n) {
  for (int i = 0; i < n; i++)
    work[i] = sin(x[i]) * x[i];
  double s = 0;
  for (int r = 0; r < 200; r++) /* long enough for the threads to overlap */
    for (int i = 0; i < n; i++)
      s += work[i] * work[(i + r) % n] * 1e-3;
  return s;
}

typedef struct { double x[N], g[N]; int bad; } Job;

static void *run(void *arg) {
  Job *j = (Job *)arg;
  for (int rep = 0; rep < 20; rep++) {
    double g[N] = {0};
    __enzyme_autodiff((void *)f, enzyme_dup, j->x, g, enzyme_const, N);
    for (int i = 0; i < N; i++)
      if (rep == 0)
        j->g[i] = g[i];
      else if (g[i] != j->g[i])
        j->bad = 1;
  }
  return 0;
}

static double f_fd(const double *x, void *ctx) { (void)ctx; return f(x, N); }

int main(void) {
  Job jobs[4];
  pthread_t th[4];
  for (int t = 0; t < 4; t++) {
    for (int i = 0; i < N; i++)
      jobs[t].x[i] = 0.1 * i - 0.3 * t;
    jobs[t].bad = 0;
    pthread_create(&th[t], 0, run, &jobs[t]);
  }
  for (int t = 0; t < 4; t++)
    pthread_join(th[t], 0);
  for (int t = 0; t < 4; t++) {
    CHECK_TRUE(!jobs[t].bad, "thread %d: repeated gradients agree", t);
    double fd[N];
    check_fd_grad(f_fd, 0, jobs[t].x, N, fd);
    for (int i = 0; i < N; i += 7) {
      CHECK_CLOSE(jobs[t].g[i], fd[i], 1e-7, "thread %d d/dx[%d]", t, i);
      double e[N] = {0};
      e[i] = 1;
      CHECK_CLOSE(__enzyme_fwddiff((void *)f, enzyme_dup, jobs[t].x, e, enzyme_const, N), jobs[t].g[i], 1e-12,
                  "thread %d forward vs reverse [%d]", t, i);
    }
  }
  return check_report();
}
