/* Synthase user header: Enzyme's C calling convention for automatic differentiation.
 *
 * Code written against Enzyme's convention compiles unchanged: declare the entry points and
 * markers yourself, or include this header. Compile with synthase-cc (or clang-22 with
 * -fpass-plugin=Synthase.so) and every call below is replaced by a generated derivative.
 */
#ifndef SYNTHASE_ENZYME_H
#define SYNTHASE_ENZYME_H

#ifdef __cplusplus
extern "C" {
#endif

/* Activity markers. Passed by value before an argument; only their names matter. */
extern int enzyme_dup;        /* pointer: followed by primal, then shadow */
extern int enzyme_dupnoneed;  /* like enzyme_dup, but the primal result is not needed */
extern int enzyme_dupv;       /* vector mode: followed by byte stride, primal, one strided shadow buffer */
extern int enzyme_dupnoneedv;
extern int enzyme_const;      /* not differentiated */
extern int enzyme_out;        /* reverse mode: active scalar, its adjoint is returned */
extern int enzyme_width;      /* vector mode: followed by the width N */
/* __enzyme_batch(f, enzyme_width, N, ...), declared by the caller with the result type it wants
 * (a struct of N fields): each argument of f is */
extern int enzyme_vector;     /* followed by N values, one per lane (the default) */
extern int enzyme_scalar;     /* followed by one value for every lane */
extern int enzyme_buffer;     /* followed by a byte stride and a pointer: lane k gets p + k*stride */
/* Leading options (before the first argument), as <enzyme/enzyme> passes them. */
extern int enzyme_primal_return; /* return the primal result first */
extern int enzyme_noret;         /* do not return the primal result (the default) */
extern int enzyme_const_return;  /* the return carries no derivative */
extern int enzyme_active_return; /* reverse mode: the float return is seeded with 1 */
extern int enzyme_dup_return;    /* forward mode: the tangent of the return is returned */
/* Flags that may stand anywhere among the arguments. */
extern int enzyme_runtime_activity; /* a duplicated pointer passed with itself as shadow is constant */
extern int enzyme_strong_zero;      /* 0 times an infinite partial is 0 (always so in Synthase) */
extern int enzyme_nocache;          /* accepted; Synthase decides what to tape */
extern int enzyme_not_overwritten;  /* accepted; Synthase decides what to tape */

/* Reverse mode: returns the adjoint(s) of the enzyme_out arguments; adds gradients into shadows. */
double __enzyme_autodiff(void *, ...);
/* Forward mode: returns the tangent of the result along the given tangents. */
double __enzyme_fwddiff(void *, ...);

/* Reverse mode keeps its tape buffer, and the heap blocks of its shadows, per thread from one
 * call to the next, so a gradient called in a loop allocates nothing after the first call; they
 * are freed when the thread exits (or in exit() for the main thread). This frees the calling
 * thread's buffer and cached blocks now. The plugin
 * defines it in every translation unit that calls it; it is safe at any time, also while a
 * derivative runs. */
void synthase_release_tape(void);

#ifdef __cplusplus
}
#endif

#endif /* SYNTHASE_ENZYME_H */
