/* The contract between the benchmark driver, the objectives and the AD tools.
 *
 * One executable = driver.c + one objective + one tool, so a tool that fails to build (a Synthase
 * variant before the engine supports it) costs only its own column.  The hand-written derivative
 * is linked into every executable and is the reference every tool is checked against. */
#ifndef BENCH_H
#define BENCH_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct Problem Problem;

/* --- provided by objectives/<name>.c --- */
Problem *obj_setup(int size); /* 0 small, 1 medium, 2 large; deterministic */
void obj_describe(const Problem *p, char *buf, size_t n);
long obj_deriv_len(const Problem *p);
double obj_primal(Problem *p); /* returns a checksum of the outputs so the call is not dead */
void obj_hand(Problem *p, double *D);
/* Central differences for at most max_cols input directions, leaving the other entries of D as
 * they are (the driver fills D with NaN first); returns the fraction of the full work done. */
double obj_fd(Problem *p, double *D, long max_cols);
/* Bytes the hand-written derivative keeps from its forward part for its reverse part (its own
 * intermediates, not inputs or outputs); 0 when it recomputes everything.  Optional. */
long obj_stored_bytes(const Problem *p);

/* --- provided by the tool file --- */
extern const char *tool_name;
void tool_prepare(Problem *p); /* untimed one-off work, e.g. recording an ADOL-C tape */
void tool_deriv(Problem *p, double *D);

/* --- helpers in harness/util.c --- */
typedef struct { unsigned long long s; } Rng;
void rng_seed(Rng *r, unsigned long long seed);
double rng_uniform(Rng *r);        /* [0, 1) */
double rng_normal(Rng *r);
double *alloc_doubles(long n);     /* zeroed */
/* Central differences of a vector function y = f(x) w.r.t. the flat input x (perturbed in place),
 * writing column j of the row-major n_out x n_in Jacobian into D for sampled j. */
double fd_dense(void (*f)(Problem *, double *y), Problem *p, double *x, long n_in, long n_out,
                double *D, long max_cols);

#ifdef __cplusplus
}
#endif
#endif
