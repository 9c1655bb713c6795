// Bytes read from a file inside differentiated code (read, pread, fread) carry no derivative, and
// whatever they overwrite loses its derivative: the shadow of exactly the bytes the call reports
// is zeroed, in both modes. Also the calls Rust's HashMap seeding inlines (open, close,
// getrandom, syscall(SYS_getrandom)) run as inactive. Gradients against central differences,
// forward against reverse; a short read proves only the bytes read lose their derivative.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t3 -lm && %t3
#include "check.h"
#include <fcntl.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>

#define N 6
static char path[64];

static double model(const double *x, double *work, int n) {
  for (int i = 0; i < n; i++)
    work[i] = x[i] * x[i];
  double s = 0;
  for (int i = 0; i < n; i++)
    s += sin(work[i]);
  int fd = open(path, O_RDONLY);
  ssize_t r = read(fd, work, 2 * sizeof(double));             /* work[0..1] from the file */
  ssize_t p = pread(fd, work + 2, 2 * sizeof(double), 24);     /* only 1 double left: short */
  close(fd);
  FILE *fp = fopen(path, "rb");
  size_t k = fread(work + 4, sizeof(double), 1, fp);           /* work[4] */
  fclose(fp);
  unsigned seed[2];
  getrandom(seed, sizeof seed, 0);
  syscall(SYS_getrandom, seed, sizeof seed, 0);
  for (int i = 0; i < n; i++)
    s += work[i] * x[(i + 1) % n];
  return s + 0 * (double)(r + p + (ssize_t)k);
}

static double fd_of(const double *x, int i) {
  double xp[N], xm[N], w[N], h = 1e-6;
  memcpy(xp, x, sizeof xp);
  memcpy(xm, x, sizeof xm);
  xp[i] += h;
  xm[i] -= h;
  return (model(xp, w, N) - model(xm, w, N)) / (2 * h);
}

int main(void) {
  strcpy(path, "/tmp/synthase-reads-XXXXXX");
  int fd = mkstemp(path);
  double data[4] = {1.5, -2.0, 0.25, 4.0};
  CHECK_TRUE(write(fd, data, sizeof data) == (ssize_t)sizeof data, "test file written");
  close(fd);
  double x[N], dx[N] = {0}, w[N], dw[N] = {0};
  for (int i = 0; i < N; i++)
    x[i] = 0.3 + 0.1 * i;
  __enzyme_autodiff((void *)model, enzyme_dup, x, dx, enzyme_dup, w, dw, enzyme_const, N);
  for (int i = 0; i < N; i++) {
    double t[N] = {0}, tw[N] = {0};
    t[i] = 1;
    double want = fd_of(x, i);
    CHECK_CLOSE(dx[i], want, 1e-7, "reverse d/dx%d", i);
    CHECK_CLOSE(__enzyme_fwddiff((void *)model, enzyme_dup, x, t, enzyme_dup, w, tw, enzyme_const, N), dx[i],
                1e-12, "forward = reverse d/dx%d", i);
  }
  /* the short pread filled work[2] only: work[3] keeps x3^2 and its derivative */
  CHECK_CLOSE(w[2], 4.0, 0, "pread value");
  CHECK_CLOSE(w[3], x[3] * x[3], 0, "bytes past a short read keep their value");
  unlink(path);
  return check_report();
}
