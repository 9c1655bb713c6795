// Scratch memory from mmap: an anonymous mapping is allocated like malloc (its shadow is another
// anonymous mapping of the same length, released by munmap with the same length), and a
// read-only private mapping of a file of weights gets a zero-filled writable shadow, never a
// second view of the file. Before, the stores into the mapping were refused ("the result of a
// call to 'mmap'"). Gradients against central differences, forward against reverse.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0 %t0.w
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2 %t2.w
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3 %t3.w
#include "check.h"
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#define N 5

static double scratch(const double *x, int n) {
  size_t bytes = 2 * n * sizeof(double);
  double *w = (double *)mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (w == MAP_FAILED)
    return 0;
  for (int i = 0; i < n; i++) {
    w[i] = x[i] * x[i];
    w[n + i] = cos(w[i]) + x[(i + 1) % n];
  }
  double s = 0;
  for (int i = 0; i < n; i++)
    s += w[n + i] * w[(i + 2) % n];
  munmap(w, bytes);
  return s;
}

static int weights_fd = -1;
static double weighted(const double *x, int n) {
  const double *w = (const double *)mmap(NULL, n * sizeof(double), PROT_READ, MAP_PRIVATE, weights_fd, 0);
  if (w == MAP_FAILED)
    return 0;
  double s = 0;
  for (int i = 0; i < n; i++)
    s += w[i] * sin(x[i]) * x[(i + 1) % n];
  munmap((void *)w, n * sizeof(double));
  return s;
}

typedef double (*Objective)(const double *, int);
static double fd_of(const double *x, void *f) { return ((Objective)f)(x, N); }

static void check(Objective f, const char *name, const double *x) {
  double dx[N] = {0}, g[N], v[N];
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N);
  check_fd_grad(fd_of, (void *)f, x, N, g);
  for (int i = 0; i < N; i++)
    CHECK_CLOSE(dx[i], g[i], 1e-7, "%s: reverse d/dx%d vs FD", name, i);
  check_fill(v, N, -1, 1);
  double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, v, enzyme_const, N);
  CHECK_CLOSE(t, check_dot(g, v, N), 1e-7, "%s: forward vs FD", name);
  CHECK_CLOSE(t, check_dot(dx, v, N), 1e-12, "%s: forward vs reverse", name);
}

int main(int argc, char **argv) {
  double file_w[N] = {0.5, -1.25, 2.0, 0.75, -0.3}, x[N];
  const char *path = argc > 1 ? argv[1] : "mmap_scratch.weights";
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  CHECK_TRUE(fd >= 0 && write(fd, file_w, sizeof file_w) == (ssize_t)sizeof file_w, "weights file written");
  weights_fd = fd;
  check_seed(13);
  check_fill(x, N, -1, 1);
  check(scratch, "anonymous scratch", x);
  check(weighted, "file weights", x);
  double back[N] = {0};
  CHECK_TRUE(pread(fd, back, sizeof back, 0) == (ssize_t)sizeof back && !memcmp(back, file_w, sizeof back),
             "the file is unchanged");
  close(fd);
  unlink(path);
  return check_report();
}
