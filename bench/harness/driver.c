/* Runs one (objective, tool) pair: checks the tool's derivative against the hand-written one and
 * times primal and derivative.  Prints one JSON object; bench/run.py assembles the tables.
 *
 * usage: driver SIZE [--check] [--budget SECONDS] */
#include "bench.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static volatile double sink;

/* Both optional: an objective may not say what its hand-written adjoint stores, and only a
 * Synthase reverse tool built with -mllvm -synthase-tape-stats defines the tape's high-water
 * mark (bytes, the largest tape of any call). */
#pragma weak obj_stored_bytes
extern long __synthase_tape_peak_v1 __attribute__((weak));

typedef struct { double med, lo, hi; int samples; long batch; } Stats;

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Very short calls are batched so that one sample is well above the clock's resolution. */
static Stats measure(void (*run)(Problem *, double *), Problem *p, double *D, double budget) {
  enum { MAX_SAMPLES = 200, MIN_SAMPLES = 5 };
  double samples[MAX_SAMPLES];
  Stats s = {0, 0, 0, 0, 1};
  double t0 = now();
  run(p, D); /* warm-up: page faults, lazy allocations, caches */
  double one = now() - t0;
  while (one * (double)s.batch < 2e-3 && s.batch < (1L << 20)) s.batch *= 2;
  double start = now();
  while (s.samples < MAX_SAMPLES && (s.samples < MIN_SAMPLES || now() - start < budget)) {
    double a = now();
    for (long k = 0; k < s.batch; ++k) run(p, D);
    samples[s.samples++] = (now() - a) / (double)s.batch;
  }
  qsort(samples, (size_t)s.samples, sizeof(double), cmp_double);
  s.lo = samples[0];
  s.hi = samples[s.samples - 1];
  s.med = s.samples % 2 ? samples[s.samples / 2]
                        : 0.5 * (samples[s.samples / 2 - 1] + samples[s.samples / 2]);
  return s;
}

static void run_primal(Problem *p, double *D) { (void)D; sink += obj_primal(p); }
static void run_tool(Problem *p, double *D) { tool_deriv(p, D); }

static double fd_fraction = 1.0;
static long fd_cols = 64;
static void run_fd(Problem *p, double *D) { fd_fraction = obj_fd(p, D, fd_cols); }

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s SIZE [--check] [--budget S]\n", argv[0]);
    return 2;
  }
  int size = atoi(argv[1]), check_only = 0;
  double budget = 0.5;
  for (int i = 2; i < argc; ++i) {
    if (!strcmp(argv[i], "--check")) check_only = 1;
    else if (!strcmp(argv[i], "--budget") && i + 1 < argc) budget = atof(argv[++i]);
  }
  int is_fd = !strcmp(tool_name, "fd");
  Problem *p = obj_setup(size);
  char desc[256];
  obj_describe(p, desc, sizeof desc);
  long len = obj_deriv_len(p);
  double *ref = alloc_doubles(len), *D = alloc_doubles(len);

  double primal_value = obj_primal(p);
  obj_hand(p, ref);
  double tp = now();
  tool_prepare(p);
  double prepare = now() - tp;
  if (is_fd) {
    for (long k = 0; k < len; ++k) D[k] = NAN;
    fd_fraction = obj_fd(p, D, fd_cols);
  }
  else tool_deriv(p, D);

  /* The worst entry decides: rho(x, y) = |x - y| / max(1, |x| + |y|). */
  double rho = 0;
  long checked = 0, bad = -1;
  for (long k = 0; k < len; ++k) {
    if (is_fd && isnan(D[k])) continue;
    double r = fabs(D[k] - ref[k]) / fmax(1.0, fabs(D[k]) + fabs(ref[k]));
    if (!(r <= rho)) { rho = r; bad = k; }
    ++checked;
  }
  printf("{\"tool\":\"%s\",\"size\":%d,\"desc\":\"%s\",\"deriv_len\":%ld,\"primal_value\":%.17g,"
         "\"checked\":%ld,\"rho\":%.3e,\"worst_index\":%ld,\"prepare_s\":%.6g",
         tool_name, size, desc, len, primal_value, checked, isnan(rho) ? INFINITY : rho, bad,
         prepare);
  if (bad >= 0) printf(",\"worst\":[%.17g,%.17g]", D[bad], ref[bad]);
  if (obj_stored_bytes) printf(",\"hand_stored_bytes\":%ld", obj_stored_bytes(p));
  if (&__synthase_tape_peak_v1) printf(",\"tape_peak_bytes\":%ld", __synthase_tape_peak_v1);
  if (!check_only) {
    Stats sp = measure(run_primal, p, D, budget);
    Stats sd = measure(is_fd ? run_fd : run_tool, p, D, budget);
    /* Finite differences on a sample of directions, scaled to the cost of all of them. */
    double scale = is_fd ? 1.0 / fd_fraction : 1.0;
    printf(",\"primal\":{\"med\":%.6e,\"min\":%.6e,\"max\":%.6e,\"n\":%d,\"batch\":%ld}", sp.med,
           sp.lo, sp.hi, sp.samples, sp.batch);
    printf(",\"deriv\":{\"med\":%.6e,\"min\":%.6e,\"max\":%.6e,\"n\":%d,\"batch\":%ld,"
           "\"extrapolated\":%s}",
           sd.med * scale, sd.lo * scale, sd.hi * scale, sd.samples, sd.batch,
           scale > 1.0 ? "true" : "false");
  }
  printf("}\n");
  return 0;
}
