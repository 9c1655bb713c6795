#!/usr/bin/env python3
"""fuzzgen: random self-checking C programs for Synthase's differential testing.

Every generated function has the signature

    double fK(double x0, double x1, double x2, double *a, double *o, fz_P *p, int n)

with fz_P = {double w; double s[3]; int k;}. Its inputs are x0..x2 and the initial contents of
a, o and the double fields of *p; its outputs are the return value and the final contents of a,
o and *p (a is read and overwritten in place, o is written and read). The body mixes arithmetic,
libm calls whose arguments are kept inside their domains, branches on data and on loop indices,
nested loops, a data-dependent while loop, array reads and in-place writes, struct fields, helper
functions (scalar, array and struct helpers), and malloc/free scratch buffers. A share of the
functions (--mem) also use the memory classes of fuzzmem.py: aligned allocators, a registered arena
allocator, an enzyme_dup workspace parameter (`double *ws` before n), struct copies holding pointers
and floats, and doubles moved through uint64_t (swaps, sorts).

For each function the emitted C file holds wrappers that pack/unpack the inputs and outputs into
flat vectors, and a harness (the same text in every file: each file stands alone) that at a few
random points checks
  * forward mode  J v          against central finite differences along v,
  * reverse mode  <v, J^T w>   against <FD(J v), w>,
  * the dot-product test <J v, w> = <v, J^T w> (forward against reverse, tight tolerance),
  * vector mode (enzyme_width 2, separate shadows, struct {double d[2]} return) lane by lane
    against scalar forward mode,
  * vector reverse mode (enzyme_width 2: two output weightings, explicit seeds, each active
    scalar's two adjoints in a row) lane by lane against scalar reverse mode,
  * that forward and reverse mode leave the same primal outputs in memory as the primal.
With --nested, also second order (functions without the arena): forward over reverse (the tangent
of the reverse-mode gradient J^T w along v) and reverse over forward (the gradient of <w, J v>),
against each other and against central differences of the gradient.
FD is evaluated with two step sizes; when they disagree (a branch, a kink, an ill-conditioned
point) the point is skipped. The tolerance is derived from that disagreement and the values' scale.

Usage:
  fuzzgen.py --seed S --count N [--first K] [--out FILE]   one C file with functions K..K+N-1
  fuzzgen.py --seed S --index K --out FILE                 one function (a reproducer)
  --mem RATE               fraction of functions with memory features (0: the streams from before)
  --mem-features a,b,...   which of them (aligned, arena, workspace, structcopy, intmove; all, none)
  --nested                 add the second-order checks (same functions: nesting draws no random numbers)
The program prints "FZ tried=T mismatches=M skipped=S" and exits 1 on any mismatch; with a
numeric argument it runs only that function (by index in the file). Compiled with -DFZ_PRIMAL_ONLY
(plain clang, no plugin) it only runs the primals at the same points: scripts/fuzz.sh builds that
under ASan+UBSan to keep undefined behaviour out of the generated programs.
"""
import argparse
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzzmem  # noqa: E402

HARNESS = r'''
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <malloc.h>

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed, enzyme_width;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
typedef struct { double d0, d1, d2; } fz_G3;
typedef struct { double d[2]; } fz_T2;
fz_G3 __enzyme_autodiff_g3(void *, ...);
typedef struct { double d0[2], d1[2], d2[2]; } fz_G3x2;
fz_G3x2 __enzyme_autodiff_g3x2(void *, ...);
fz_T2 __enzyme_fwddiff_w2(void *, ...);

typedef struct { double w; double s[3]; int k; } fz_P;
/* fuzzmem.py's struct copies: a pointer to active data, doubles and a float */
typedef struct { double *v; double d; float f; int k; double e; } fz_S;
#ifdef FZ_PRIMAL_ONLY
#define FZ_AD(f) 0
#else
#define FZ_AD(f) f
#endif

/* Flat layouts. Inputs X: x0 x1 x2 | a[N] | o[N] | p.w p.s[0..2]  (3 + 2N + 4)
                 Outputs Y: ret | a[N] | o[N] | p.w p.s[0..2]      (1 + 2N + 4) */
static void fz_unpack(const double *v, int n, double *a, double *o, fz_P *p, int k) {
  memcpy(a, v, sizeof(double) * n);
  memcpy(o, v + n, sizeof(double) * n);
  p->w = v[2 * n];
  for (int j = 0; j < 3; ++j)
    p->s[j] = v[2 * n + 1 + j];
  p->k = k;
}
static void fz_pack(double *v, int n, const double *a, const double *o, const fz_P *p) {
  memcpy(v, a, sizeof(double) * n);
  memcpy(v + n, o, sizeof(double) * n);
  v[2 * n] = p->w;
  for (int j = 0; j < 3; ++j)
    v[2 * n + 1 + j] = p->s[j];
}

typedef struct {
  const char *name;
  unsigned long long index;
  int nin, nout;
  void (*primal)(const double *X, double *Y);
  void (*fwd)(const double *X, const double *V, double *Yp, double *JV);
  void (*rev)(const double *X, const double *W, double *Yp, double *G);
  void (*vec)(const double *X, const double *V1, const double *V2, double *JV1, double *JV2);
  void (*vrev)(const double *X, const double *W1, const double *W2, double *Yp, double *G1, double *G2);
  /* --nested only (null otherwise): H = sum_j W[j] * Hessian(Y[j]) * V, forward over reverse
     (the tangent of the gradient J^T W along V) and reverse over forward (the gradient of <W, J V>) */
  void (*fwd_rev)(const double *X, const double *V, const double *W, double *H);
  void (*rev_fwd)(const double *X, const double *V, const double *W, double *H);
} fz_fn;

static unsigned long long fz_state = 1;
static double fz_uniform(double lo, double hi) {
  unsigned long long x = fz_state;
  x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
  fz_state = x;
  return lo + (hi - lo) * ((double)((x * 0x2545F4914F6CDD1Dull) >> 11) * (1.0 / 9007199254740992.0));
}
static int fz_bad(double v) { return !(v == v) || fabs(v) > 1e8; }
static double fz_rel(double g, double w) {
  double d = fabs(g - w), s = fabs(g) + fabs(w);
  if (!(d == d)) return 1e300;
  return d / (s > 1 ? s : 1);
}
static int fz_verbose = 0;
/* set by per-function checks inside the wrappers (fuzzmem.py's arena); fz_check reports it */
static int fz_extra_bad = 0;

#ifdef FZ_PRIMAL_ONLY
/* Built with plain clang under ASan+UBSan (scripts/fuzz.sh): runs the primal at the points and
   finite-difference steps fz_check uses, so undefined behaviour in a generated program is caught
   before the engine is blamed for it. */
static int fz_check(const fz_fn *F, unsigned long long seed, int *skipped) {
  enum { MAXV = 64 };
  double X[MAXV], V[MAXV], T[MAXV], Y[MAXV];
  (void)skipped;
  fz_state = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
  if (!fz_state) fz_state = 1;
  for (int trial = 0; trial < 3; ++trial) {
    for (int i = 0; i < F->nin; ++i) {
      X[i] = fz_uniform(-1, 1);
      V[i] = fz_uniform(-1, 1);
      (void)fz_uniform(-1, 1);
    }
    F->primal(X, Y);
    for (int s = -1; s <= 1; s += 2) {
      for (int i = 0; i < F->nin; ++i) T[i] = X[i] + s * 2e-5 * V[i];
      F->primal(T, Y);
    }
  }
  return 0;
}
#else
/* Second order (--nested): forward over reverse and reverse over forward against central
   differences of the reverse-mode gradient G = J^T W along V (G itself was checked against FD of
   the primal), and against each other. Returns 1 on a mismatch. */
static int fz_check_nested(const fz_fn *F, int trial, const double *X, const double *V, const double *W,
                           const double *G) {
  enum { MAXV = 64 };
  double H1[MAXV], H2[MAXV], T[MAXV], Gp[MAXV], Gm[MAXV], Yr[MAXV], fd[2][MAXV];
  int bad = 0, kink = 0;
  double xs = 1;
  for (int i = 0; i < F->nin; ++i)
    if (fabs(X[i]) > xs) xs = fabs(X[i]);
  double hs[2] = {2e-5 * xs, 1e-5 * xs};
  for (int s = 0; s < 2; ++s) {
    for (int i = 0; i < F->nin; ++i) T[i] = X[i] + hs[s] * V[i];
    F->rev(T, W, Yr, Gp);
    for (int i = 0; i < F->nin; ++i) T[i] = X[i] - hs[s] * V[i];
    F->rev(T, W, Yr, Gm);
    for (int i = 0; i < F->nin; ++i)
      fd[s][i] = (Gp[i] - Gm[i]) / (2 * hs[s]);
  }
  for (int i = 0; i < F->nin; ++i)
    if (fz_bad(fd[0][i]) || fz_bad(fd[1][i]) || fz_rel(fd[0][i], fd[1][i]) > 1e-4) kink = 1;
  for (int i = 0; i < F->nin; ++i) H1[i] = H2[i] = 0;
  F->fwd_rev(X, V, W, H1);
  F->rev_fwd(X, V, W, H2);
  for (int i = 0; i < F->nin; ++i) {
    double sc = fabs(H1[i]) + fabs(H2[i]) + fabs(G[i]);
    if (fabs(H1[i] - H2[i]) > 1e-9 * (sc > 1 ? sc : 1)) {
      fprintf(stderr, "FZMISMATCH %s trial %d: forward over reverse H[%d] = %.17g, reverse over forward %.17g\n", F->name, trial, i, H1[i], H2[i]);
      bad = 1;
    }
    if (kink) continue;
    double tol = 1e-5 + 20 * fz_rel(fd[0][i], fd[1][i]);
    if (fz_rel(H1[i], fd[1][i]) > tol) {
      fprintf(stderr, "FZMISMATCH %s trial %d: forward over reverse H[%d] = %.17g, FD of the gradient %.17g (at 2h %.17g)\n", F->name, trial, i, H1[i], fd[1][i], fd[0][i]);
      bad = 1;
    }
  }
  if (fz_verbose)
    fprintf(stderr, "%s trial %d: nested %s\n", F->name, trial, kink ? "kink (FD skipped)" : "ok");
  return bad;
}

/* Returns 0 ok, 1 mismatch; *skipped counts points skipped. */
static int fz_check(const fz_fn *F, unsigned long long seed, int *skipped) {
  enum { MAXV = 64 };
  double X[MAXV], V[MAXV], V2[MAXV], W[MAXV], Y[MAXV], Yp[MAXV], Yr[MAXV], JV[MAXV], JV1[MAXV],
      JV2[MAXV], JVb[MAXV], G[MAXV], T[MAXV], Fp[MAXV], Fm[MAXV], fd1[MAXV], fd2[MAXV];
  int bad = 0;
  fz_state = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
  if (!fz_state) fz_state = 1;
  for (int trial = 0; trial < 3 && !bad; ++trial) {
    for (int i = 0; i < F->nin; ++i) {
      X[i] = fz_uniform(-1, 1);
      V[i] = fz_uniform(-1, 1);
      V2[i] = fz_uniform(-1, 1);
    }
    W[0] = 1.0;
    for (int j = 1; j < F->nout; ++j)
      W[j] = fz_uniform(-1, 1);
    F->primal(X, Y);
    int nonfinite = 0;
    for (int j = 0; j < F->nout; ++j)
      nonfinite |= fz_bad(Y[j]);
    if (nonfinite) { ++*skipped; continue; }
    /* central differences along V at steps h and h/2 */
    double xs = 1;
    for (int i = 0; i < F->nin; ++i)
      if (fabs(X[i]) > xs) xs = fabs(X[i]);
    double hs[2] = {2e-5 * xs, 1e-5 * xs};
    for (int s = 0; s < 2; ++s) {
      double h = hs[s];
      for (int i = 0; i < F->nin; ++i) T[i] = X[i] + h * V[i];
      F->primal(T, Fp);
      for (int i = 0; i < F->nin; ++i) T[i] = X[i] - h * V[i];
      F->primal(T, Fm);
      for (int j = 0; j < F->nout; ++j)
        (s ? fd2 : fd1)[j] = (Fp[j] - Fm[j]) / (2 * h);
    }
    int kink = 0;
    for (int j = 0; j < F->nout; ++j)
      if (fz_bad(fd1[j]) || fz_bad(fd2[j]) || fz_rel(fd1[j], fd2[j]) > 1e-5) kink = 1;
    /* forward */
    F->fwd(X, V, Yp, JV);
    for (int j = 1; j < F->nout; ++j)
      if (fz_rel(Yp[j], Y[j]) > 1e-12) {
        fprintf(stderr, "FZMISMATCH %s trial %d: forward-mode primal output %d: %.17g want %.17g\n", F->name, trial, j, Yp[j], Y[j]);
        bad = 1;
      }
    if (!kink) {
      for (int j = 0; j < F->nout; ++j) {
        double tol = 1e-6 + 20 * fz_rel(fd1[j], fd2[j]);
        if (fz_rel(JV[j], fd2[j]) > tol) {
          fprintf(stderr, "FZMISMATCH %s trial %d: forward J*v[%d] = %.17g, FD %.17g (FD at 2h %.17g)\n", F->name, trial, j, JV[j], fd2[j], fd1[j]);
          bad = 1;
        }
      }
    } else {
      ++*skipped;
    }
    /* reverse */
    F->rev(X, W, Yr, G);
    for (int j = 1; j < F->nout; ++j)
      if (fz_rel(Yr[j], Y[j]) > 1e-12) {
        fprintf(stderr, "FZMISMATCH %s trial %d: reverse-mode primal output %d: %.17g want %.17g\n", F->name, trial, j, Yr[j], Y[j]);
        bad = 1;
      }
    double vg = 0, jw = 0, fw = 0, fwdisc = 0, mag = 0;
    for (int i = 0; i < F->nin; ++i) { vg += V[i] * G[i]; mag += fabs(V[i] * G[i]); }
    for (int j = 0; j < F->nout; ++j) {
      jw += JV[j] * W[j];
      fw += fd2[j] * W[j];
      fwdisc += fabs(W[j]) * fabs(fd1[j] - fd2[j]);
      mag += fabs(JV[j] * W[j]);
    }
    if (!kink) {
      double s = fabs(vg) + fabs(fw);
      double tol = 1e-6 + 20 * fwdisc / (s > 1 ? s : 1);
      if (fz_rel(vg, fw) > tol) {
        fprintf(stderr, "FZMISMATCH %s trial %d: reverse <v, J^T w> = %.17g, FD <J v, w> = %.17g\n", F->name, trial, vg, fw);
        bad = 1;
      }
    }
    /* dot-product test: forward against reverse */
    if (fabs(vg - jw) > 1e-10 * (mag > 1 ? mag : 1)) {
      fprintf(stderr, "FZMISMATCH %s trial %d: dot test <J v, w> = %.17g (forward) vs <v, J^T w> = %.17g (reverse)\n", F->name, trial, jw, vg);
      bad = 1;
    }
    /* vector mode, width 2: lanes against scalar forward mode */
    F->vec(X, V, V2, JV1, JV2);
    F->fwd(X, V2, Yp, JVb);
    for (int j = 0; j < F->nout; ++j) {
      if (fz_rel(JV1[j], JV[j]) > 1e-12) {
        fprintf(stderr, "FZMISMATCH %s trial %d: vector lane 0 output %d = %.17g, scalar forward %.17g\n", F->name, trial, j, JV1[j], JV[j]);
        bad = 1;
      }
      if (fz_rel(JV2[j], JVb[j]) > 1e-12) {
        fprintf(stderr, "FZMISMATCH %s trial %d: vector lane 1 output %d = %.17g, scalar forward %.17g\n", F->name, trial, j, JV2[j], JVb[j]);
        bad = 1;
      }
    }
    /* vector reverse mode, width 2: lanes against scalar reverse mode (a second weighting W2) */
    double W2[MAXV], G1[MAXV], G2[MAXV], Gb[MAXV];
    W2[0] = 1.0;
    for (int j = 1; j < F->nout; ++j)
      W2[j] = 0.25 - 0.5 * W[j];
    F->rev(X, W2, Yr, Gb);
    F->vrev(X, W, W2, Yr, G1, G2);
    for (int j = 1; j < F->nout; ++j)
      if (fz_rel(Yr[j], Y[j]) > 1e-12) {
        fprintf(stderr, "FZMISMATCH %s trial %d: vector-reverse primal output %d: %.17g want %.17g\n", F->name, trial, j, Yr[j], Y[j]);
        bad = 1;
      }
    for (int i = 0; i < F->nin; ++i) {
      if (fz_rel(G1[i], G[i]) > 1e-12) {
        fprintf(stderr, "FZMISMATCH %s trial %d: vector reverse lane 0 input %d = %.17g, scalar reverse %.17g\n", F->name, trial, i, G1[i], G[i]);
        bad = 1;
      }
      if (fz_rel(G2[i], Gb[i]) > 1e-12) {
        fprintf(stderr, "FZMISMATCH %s trial %d: vector reverse lane 1 input %d = %.17g, scalar reverse %.17g\n", F->name, trial, i, G2[i], Gb[i]);
        bad = 1;
      }
    }
    if (F->fwd_rev && fz_check_nested(F, trial, X, V, W, G))
      bad = 1;
    if (fz_extra_bad) {
      fz_extra_bad = 0;
      bad = 1;
    }
    if (fz_verbose)
      fprintf(stderr, "%s trial %d: %s, <v,J^T w> %.17g, FD %.17g\n", F->name, trial, kink ? "kink (FD skipped)" : "ok", vg, fw);
  }
  return bad;
}
#endif

static int fz_main(const fz_fn *fns, int count, unsigned long long seed, int argc, char **argv) {
  int only = argc > 1 ? atoi(argv[1]) : -1;
  fz_verbose = getenv("FZ_VERBOSE") != NULL;
  int tried = 0, mism = 0, skipped = 0;
  for (int k = 0; k < count; ++k) {
    if (only >= 0 && k != only) continue;
    ++tried;
    if (fz_check(&fns[k], seed * 1000003ull + fns[k].index, &skipped)) ++mism;
  }
  printf("FZ tried=%d mismatches=%d skipped=%d\n", tried, mism, skipped);
  return mism ? 1 : 0;
}
'''

# Unary templates: {0} is an arbitrary expression; each keeps the libm argument in its domain.
UNARY = [
    "sin({0})", "cos({0})", "tanh({0})", "atan({0})", "exp(sin({0}))", "exp(-({0}) * ({0}))",
    "log(1.0 + ({0}) * ({0}))", "sqrt(1.0 + ({0}) * ({0}))", "sqrt(2.0 + sin({0}))",
    "pow(1.5 + sin({0}), 1.3)", "pow(1.2 + cos({0}), -0.7)", "cbrt(2.0 + cos({0}))", "erf({0})",
    "expm1(tanh({0}))", "sinh(tanh({0}))", "cosh(tanh({0}))", "asin(0.9 * tanh({0}))",
    "acos(0.8 * tanh({0}))", "log2(1.5 + cos({0}))", "log10(2.0 + sin({0}))", "exp2(sin({0}))",
    "tan(0.6 * tanh({0}))", "log1p(({0}) * ({0}))", "fabs({0})", "(({0}) * ({0}))",
    "(1.0 / (1.0 + ({0}) * ({0})))", "lgamma(2.0 + sin({0}))", "atanh(0.7 * tanh({0}))",
    "asinh({0})", "acosh(1.5 + ({0}) * ({0}))", "erfc(0.5 * ({0}))",
]
BINARY = [
    "({0} + {1})", "({0} - {1})", "({0} * {1})", "({0} * {1})", "({0} / (1.5 + cos({1})))",
    "({0} / (1.0 + ({1}) * ({1})))", "pow(1.5 + sin({0}), tanh({1}))", "hypot({0}, 0.5 + ({1}) * ({1}))",
    "atan2({0}, 2.0 + cos({1}))", "fmax({0}, {1})", "fmin({0}, {1})", "fma({0}, {1}, 0.25)",
    "(({0}) > ({1}) ? ({0}) : 0.5 * ({1}))",
]


class Ctx:
    def __init__(self, scalars, arrays, loopvars, struct, locals_, ints, minlen=3):
        self.scalars = scalars      # names of double parameters / locals readable
        self.arrays = arrays        # (name, writable) pairs
        self.loopvars = loopvars    # loop index names in scope
        self.struct = struct        # struct pointer name or None
        self.locals = locals_       # assignable double locals
        self.ints = ints            # int expressions in scope (n)
        # Fewest elements any array in scope may have: the function's arrays have n >= 3, but a
        # helper may run on `a + 1` with n - 1 >= 2 elements (and pass that on to another helper).
        self.minlen = minlen

    def sub(self, **kw):
        c = Ctx(self.scalars, self.arrays, self.loopvars, self.struct, self.locals, self.ints, self.minlen)
        for k, v in kw.items():
            setattr(c, k, v)
        return c


class FuncGen:
    def __init__(self, rng, name, mrng=None, mem=()):
        self.r = rng
        self.name = name
        # memory features (fuzzmem.py): drawn from mrng, never from r, so that a function
        # without them is the same text as before they existed
        self.m = mrng
        self.mem = set(mem)
        self.ws = "workspace" in self.mem
        self.uses_arena = False
        self.helpers = []          # C text of helper functions
        self.scalar_helpers = []   # names of double h(double, double)
        self.array_helpers = []    # names of void h(double *, int, double)
        self.reduce_helpers = []   # names of double h(const double *, int)
        self.struct_helpers = []   # names of double h(const fz_P *)
        self.rec_helpers = []      # names of double h(double, int) (recursive)
        self.ptr_helpers = []      # names of void h(double *, int, double) called on a + 1
        self.tmp = 0

    # ---- expressions ----
    def const(self):
        return self.r.choice(["0.5", "1.25", "2.0", "0.75", "-0.3", "3.0", "0.1"])

    def index(self, ctx):
        r = self.r
        if ctx.loopvars and r.random() < 0.85:
            v = r.choice(ctx.loopvars)
            return r.choice([v, v, "(%s + 1) %% n" % v, "n - 1 - %s" % v, "(%s * 2) %% n" % v])
        # Drawn from range(3) whatever the context, so that programs without the bound are the
        # same as before it existed; clamped so a constant index stays inside every array.
        return str(min(r.randrange(3), ctx.minlen - 1))

    def leaf(self, ctx):
        r = self.r
        k = r.random()
        if k < 0.35 and ctx.scalars:
            return r.choice(ctx.scalars)
        if k < 0.65 and ctx.arrays:
            a, _ = r.choice(ctx.arrays)
            return "%s[%s]" % (a, self.index(ctx))
        if k < 0.78 and ctx.struct:
            return r.choice(["%s->w" % ctx.struct, "%s->s[%d]" % (ctx.struct, r.randrange(3)),
                             "%s->s[%s->k %% 3]" % (ctx.struct, ctx.struct)])
        if k < 0.85 and ctx.loopvars:
            return "(double)%s" % r.choice(ctx.loopvars)
        if k < 0.92 and ctx.scalars:
            return r.choice(ctx.scalars)
        return self.const()

    def expr(self, ctx, depth):
        r = self.r
        if depth <= 0 or r.random() < 0.2:
            return self.leaf(ctx)
        k = r.random()
        if k < 0.38:
            return r.choice(UNARY).format(self.expr(ctx, depth - 1))
        if k < 0.85:
            return r.choice(BINARY).format(self.expr(ctx, depth - 1), self.expr(ctx, depth - 1))
        if k < 0.93 and self.scalar_helpers:
            return "%s(%s, %s)" % (r.choice(self.scalar_helpers), self.expr(ctx, depth - 1),
                                   self.expr(ctx, depth - 1))
        if k < 0.97 and self.reduce_helpers and ctx.arrays:
            return "%s(%s, n)" % (r.choice(self.reduce_helpers), r.choice(ctx.arrays)[0])
        if self.struct_helpers and ctx.struct:
            return "%s(%s)" % (r.choice(self.struct_helpers), ctx.struct)
        return self.leaf(ctx)

    def bexpr(self, ctx):
        """A bounded expression: safe to accumulate in loops."""
        r = self.r
        e = self.expr(ctx, r.randrange(1, 4))
        if r.random() < 0.6:
            return r.choice(["sin(%s)", "tanh(%s)", "0.5 * %s", "atan(%s)", "%s / (1.0 + fabs(%s))"]).replace("%s", "(" + e + ")")
        return e

    # ---- helpers ----
    def make_helpers(self):
        r = self.r
        n_help = r.randrange(0, 4)
        for h in range(n_help):
            kind = r.choice(["scalar", "scalar", "array", "reduce", "struct", "rec", "ptr"])
            hn = "%s_h%d" % (self.name, h)
            if kind == "scalar":
                c = Ctx(["u", "v"], [], [], None, [], [])
                body = "  double r = %s;\n" % self.expr(c, 3)
                if r.random() < 0.5:
                    body += "  if (u > v)\n    r = r * %s;\n  else\n    r += %s;\n" % (self.expr(c, 2), self.expr(c, 2))
                body += "  return r;\n"
                self.helpers.append("static double %s(double u, double v) {\n%s}\n" % (hn, body))
                self.scalar_helpers.append(hn)
            elif kind == "array":
                c = Ctx(["s", "arr[i]"], [("arr", True)], ["i"], None, [], ["n"], minlen=2)
                op = r.choice(["=", "+=", "*="])
                e = self.bexpr(c) if op != "*=" else "(1.0 + 0.3 * sin(%s))" % self.expr(c, 2)
                self.helpers.append(
                    "static void %s(double *arr, int n, double s) {\n  for (int i = 0; i < n; ++i)\n"
                    "    arr[i] %s %s;\n}\n" % (hn, op, e))
                self.array_helpers.append(hn)
            elif kind == "reduce":
                c = Ctx(["acc"], [("arr", False)], ["i"], None, [], ["n"], minlen=2)
                self.helpers.append(
                    "static double %s(const double *arr, int n) {\n  double acc = 0;\n"
                    "  for (int i = 0; i < n; ++i)\n    acc += %s;\n  return acc;\n}\n" % (hn, self.bexpr(c)))
                self.reduce_helpers.append(hn)
            elif kind == "rec":
                c = Ctx(["u"], [], [], None, [], [])
                self.helpers.append(
                    "static double %s(double u, int d) {\n  if (d <= 0)\n    return %s;\n"
                    "  return %s * %s(%s, d - 1);\n}\n" % (hn, self.expr(c, 2), self.bexpr(c), hn, self.bexpr(c)))
                self.rec_helpers.append(hn)
            elif kind == "ptr":
                c = Ctx(["s", "arr[i]"], [("arr", True)], ["i"], None, [], ["n"], minlen=2)
                text = ("static void %s(double *arr, int n, double s) {\n  double *tmp = (double *)malloc(sizeof(double) * n);\n"
                        "  for (int i = 0; i < n; ++i)\n    tmp[i] = %s;\n"
                        "  for (int i = 0; i < n; ++i)\n    arr[i] = 0.5 * arr[i] + tmp[n - 1 - i];\n  free(tmp);\n}\n"
                        % (hn, self.bexpr(c)))
                alloc = fuzzmem.helper_alloc(self) if self.mem else None
                if alloc:
                    text = text.replace("  double *tmp = (double *)malloc(sizeof(double) * n);\n", alloc[0])
                    text = text.replace("  free(tmp);\n", alloc[1])
                self.helpers.append(text)
                self.ptr_helpers.append(hn)
            else:
                c = Ctx([], [], [], "q", [], [])
                self.helpers.append("static double %s(const fz_P *q) {\n  return %s;\n}\n" % (hn, self.expr(c, 3)))
                self.struct_helpers.append(hn)

    # ---- statements ----
    def stmts(self, ctx, budget, depth):
        out = []
        while budget > 0:
            s, cost = self.stmt(ctx, depth, budget)
            out.append(s)
            budget -= cost
        return out

    def assign_target(self, ctx):
        r = self.r
        k = r.random()
        writable = [a for a, w in ctx.arrays if w]
        if k < 0.45 and ctx.locals:
            return r.choice(ctx.locals), r.choice(["=", "+=", "+=", "*="])
        if k < 0.8 and writable:
            return "%s[%s]" % (r.choice(writable), self.index(ctx)), r.choice(["=", "+=", "*="])
        if ctx.struct:
            return r.choice(["%s->w" % ctx.struct, "%s->s[%d]" % (ctx.struct, r.randrange(3))]), r.choice(["=", "+="])
        return r.choice(ctx.locals), "="

    def simple_assign(self, ctx, ind):
        tgt, op = self.assign_target(ctx)
        if op == "*=":
            e = "(1.0 + 0.25 * sin(%s))" % self.expr(ctx, 2)
        elif op == "+=" and ctx.loopvars:
            e = self.bexpr(ctx)
        else:
            e = self.expr(ctx, self.r.randrange(1, 4))
        return "%s%s %s %s;\n" % (ind, tgt, op, e)

    def stmt(self, ctx, depth, budget):
        r = self.r
        ind = "  " * (depth + 1)
        if self.mem and self.m.random() < fuzzmem.STMT_RATE:
            s = fuzzmem.mem_stmt(self, ctx, depth, budget)
            if s:
                return s
        k = r.random()
        if depth < 3 and budget >= 3 and k < 0.22:
            # for loop (nested ones use i, j, l)
            v = ["i", "j", "l"][len(ctx.loopvars)] if len(ctx.loopvars) < 3 else None
            if v:
                if ctx.loopvars and r.random() < 0.5:
                    bound = r.choice(["%s" % ctx.loopvars[-1], "%s + 1" % ctx.loopvars[-1], "2"])
                else:
                    bound = "n"
                inner = self.stmts(ctx.sub(loopvars=ctx.loopvars + [v]), r.randrange(1, min(budget, 5)), depth + 1)
                return "%sfor (int %s = 0; %s < %s; ++%s) {\n%s%s}\n" % (ind, v, v, bound, v, "".join(inner), ind), 3
        if depth < 3 and budget >= 2 and k < 0.36:
            # branch: on data (a kink FD detects) or on an index
            if ctx.loopvars and r.random() < 0.5:
                cond = "%s %% 2 == %d" % (r.choice(ctx.loopvars), r.randrange(2))
            else:
                cond = "%s > %s" % (self.expr(ctx, 2), r.choice(["0.0", "0.3", "-0.2", self.leaf(ctx)]))
            then = self.stmts(ctx, r.randrange(1, 3), depth + 1)
            s = "%sif (%s) {\n%s%s}" % (ind, cond, "".join(then), ind)
            if r.random() < 0.6:
                els = self.stmts(ctx, r.randrange(1, 3), depth + 1)
                s += " else {\n%s%s}" % ("".join(els), ind)
            return s + "\n", 2
        if k < 0.42 and self.array_helpers:
            writable = [a for a, w in ctx.arrays if w]
            if writable:
                return "%s%s(%s, n, %s);\n" % (ind, r.choice(self.array_helpers), r.choice(writable), self.expr(ctx, 2)), 1
        if k < 0.47 and depth == 0 and budget >= 3:
            # malloc'd scratch buffer
            self.tmp += 1
            m = "m%d" % self.tmp
            c_in = ctx.sub(loopvars=ctx.loopvars + ["i"])
            fill = self.bexpr(c_in)
            c_use = ctx.sub(arrays=ctx.arrays + [(m, True)])
            # No early return between malloc and free: the program itself would leak, and
            # LeakSanitizer runs (FUZZ_SANITIZE=1) would blame the engine for it.
            self.in_scratch = getattr(self, "in_scratch", 0) + 1
            use = self.stmts(c_use, r.randrange(1, 3), depth)
            self.in_scratch -= 1
            tgt = r.choice(ctx.locals)
            return ("%sdouble *%s = (double *)malloc(sizeof(double) * n);\n"
                    "%sfor (int i = 0; i < n; ++i)\n%s  %s[i] = %s;\n%s"
                    "%sfor (int i = 0; i < n; ++i)\n%s  %s += 0.5 * sin(%s[i]);\n"
                    "%sfree(%s);\n") % (ind, m, ind, ind, m, fill, "".join(use), ind, ind, tgt, m, ind, m), 3
        if k < 0.5 and depth < 2 and budget >= 2 and ctx.locals:
            # data-dependent trip count
            self.tmp += 1
            it = "it%d" % self.tmp
            t = r.choice(ctx.locals)
            return ("%sfor (int %s = 0; %s < 6 && %s < 1.5; ++%s)\n%s  %s += 0.3 + 0.1 * sin(%s);\n"
                    % (ind, it, it, t, it, ind, t, self.expr(ctx, 2))), 2
        if k < 0.56 and depth == 0 and budget >= 3:
            # local array read at run-time indices (survives SROA), memcpy'd from an input
            self.tmp += 1
            L = "loc%d" % self.tmp
            c_in = ctx.sub(loopvars=["i"])
            tgt = r.choice(ctx.locals)
            src = r.choice([a for a, w in ctx.arrays])
            return ("%sdouble %s[8];\n%smemcpy(%s, %s, sizeof(double) * n);\n"
                    "%sfor (int i = 0; i < n; ++i)\n%s  %s[(i + 1) %% n] = %s[i] * %s;\n"
                    "%sfor (int i = 0; i < n; ++i)\n%s  %s += %s[(i * 3) %% n] * %s;\n") % (
                ind, L, ind, L, src, ind, ind, L, L, self.bexpr(c_in), ind, ind, tgt, L, self.bexpr(c_in)), 3
        if k < 0.6 and depth < 3 and budget >= 2 and ctx.locals:
            # loop with break / continue on data
            v = ["i", "j", "l"][len(ctx.loopvars)] if len(ctx.loopvars) < 3 else None
            if v:
                c2 = ctx.sub(loopvars=ctx.loopvars + [v])
                t = r.choice(ctx.locals)
                kw = r.choice(["break", "continue"])
                return ("%sfor (int %s = 0; %s < n; ++%s) {\n%s  if (%s > %s)\n%s    %s;\n%s%s}\n"
                        % (ind, v, v, v, ind, self.expr(c2, 2), r.choice(["0.8", "1.5", "0.2"]), ind, kw,
                           "".join(self.stmts(c2, 2, depth + 1)), ind)), 2
        if k < 0.63 and depth < 3 and ctx.loopvars:
            # switch on an integer
            v = r.choice(ctx.loopvars)
            cases = "".join("%s  case %d:\n%s%s    break;\n" % (ind, c, "".join(self.stmts(ctx, 1, depth + 2)), ind)
                            for c in range(r.randrange(1, 3)))
            return "%sswitch (%s %% 3) {\n%s%s  default:\n%s%s    break;\n%s}\n" % (
                ind, v, cases, ind, "".join(self.stmts(ctx, 1, depth + 2)), ind, ind), 2
        if k < 0.66 and self.rec_helpers:
            return "%s%s += %s(%s, %d);\n" % (ind, r.choice(ctx.locals), r.choice(self.rec_helpers), self.expr(ctx, 2), r.randrange(1, 5)), 1
        if k < 0.69 and self.ptr_helpers:
            writable = [a for a, w in ctx.arrays if w]
            if writable:
                return "%s%s(%s + 1, n - 1, %s);\n" % (ind, r.choice(self.ptr_helpers), r.choice(writable), self.expr(ctx, 2)), 1
        if k < 0.71 and depth >= 1 and ctx.locals and not getattr(self, "in_scratch", 0):
            # early return
            return "%sif (%s > 1.2)\n%s  return %s;\n" % (ind, self.expr(ctx, 2), ind, self.expr(ctx, 2)), 1
        return self.simple_assign(ctx, ind), 1

    def generate(self):
        r = self.r
        self.make_helpers()
        nloc = r.randrange(2, 5)
        locs = ["t%d" % i for i in range(nloc)]
        base = Ctx(["x0", "x1", "x2"], [("a", True), ("o", True)], [], "p", [], ["n"])
        decl = ""
        for i, t in enumerate(locs):
            decl += "  double %s = %s;\n" % (t, self.expr(base.sub(scalars=["x0", "x1", "x2"] + locs[:i]), 2))
        ctx = base.sub(scalars=["x0", "x1", "x2"] + locs, locals=locs)
        body = self.stmts(ctx, r.randrange(4, 11), 0)
        ret = " + ".join(r.choice([t, "sin(%s)" % t, "0.5 * %s" % t]) for t in locs)
        if r.random() < 0.5:
            ret += " + " + self.expr(ctx, 2)
        fn = ("static double %s(double x0, double x1, double x2, double *a, double *o, fz_P *p, %sint n) {\n"
              "%s%s  return %s;\n}\n") % (self.name, "double *ws, " if self.ws else "", decl, "".join(body), ret)
        return "".join(self.helpers) + fn


NESTED_WRAPPERS = '''
#ifndef FZ_PRIMAL_ONLY
/* --nested: the first-order wrappers differentiated once more */
static void {name}_grad(const double *X, const double *W, double *G) {{
  double Yp[{nout}];
  {name}_rev(X, W, Yp, G);
}}
static void {name}_fwd_rev(const double *X, const double *V, const double *W, double *H) {{
  double G[{nin}];
  __enzyme_fwddiff((void *){name}_grad, enzyme_dup, X, V, enzyme_const, W, enzyme_dup, G, H);
}}
static double {name}_wjv(const double *X, const double *V, const double *W) {{
  double Yp[{nout}], JV[{nout}], s = 0;
  {name}_fwd(X, V, Yp, JV);
  for (int j = 0; j < {nout}; ++j)
    s += W[j] * JV[j];
  return s;
}}
static void {name}_rev_fwd(const double *X, const double *V, const double *W, double *H) {{
  __enzyme_autodiff((void *){name}_wjv, enzyme_dup, X, H, enzyme_const, V, enzyme_const, W);
}}
#endif
'''


def wrappers(r, name, N, K, ws=False, arena=False):
    nin, nout = 3 + 2 * N + 4, 1 + 2 * N + 4
    # Markers: explicit or by default (float → tangent / active, pointer → shadow, int → const).
    explicit = r.random() < 0.6
    dup = "enzyme_dup, " if explicit else ""
    cn = "enzyme_const, " if explicit or r.random() < 0.5 else ""
    out = "enzyme_out, " if explicit else ""
    # A workspace (fuzzmem.py) is written before it is read: its primal contents and its forward
    # tangents start as junk; reverse mode's shadow starts at zero (Enzyme's convention).
    wsd = (f"  double ws[{N}], dws[{N}], dws2[{N}];\n"
           f"  for (int i = 0; i < {N}; ++i) {{ ws[i] = 1e3 + i; dws[i] = -7.5 - i; dws2[i] = 3.25 * i; }}\n") if ws else ""
    wsp = "ws, " if ws else ""
    wsf = f"{dup}ws, dws, " if ws else ""
    wsr0 = "  memset(dws, 0, sizeof dws);\n" if ws else ""
    wsv = f"{dup}ws, dws, dws2, " if ws else ""
    wsr2 = "  memset(dws, 0, sizeof dws);\n  memset(dws2, 0, sizeof dws2);\n" if ws else ""
    settle = (lambda mode: f'  fz_arena_settle("{name}", "{mode}");\n') if arena else (lambda mode: "")
    return f'''
static void {name}_primal(const double *X, double *Y) {{
  double a[{N}], o[{N}];
  fz_P p;
{wsd}  fz_unpack(X + 3, {N}, a, o, &p, {K});
  Y[0] = {name}(X[0], X[1], X[2], a, o, &p, {wsp}{N});
{settle("primal")}  fz_pack(Y + 1, {N}, a, o, &p);
}}
#ifndef FZ_PRIMAL_ONLY
static void {name}_fwd(const double *X, const double *V, double *Yp, double *JV) {{
  double a[{N}], o[{N}], da[{N}], dO[{N}];
  fz_P p, dp;
{wsd}  fz_unpack(X + 3, {N}, a, o, &p, {K});
  fz_unpack(V + 3, {N}, da, dO, &dp, {K});
  JV[0] = __enzyme_fwddiff((void *){name}, {dup}X[0], V[0], {dup}X[1], V[1], {dup}X[2], V[2], {dup}a, da, {dup}o, dO, {dup}&p, &dp, {wsf}{cn}{N});
{settle("forward")}  fz_pack(JV + 1, {N}, da, dO, &dp);
  Yp[0] = 0;
  fz_pack(Yp + 1, {N}, a, o, &p);
}}
static void {name}_rev(const double *X, const double *W, double *Yp, double *G) {{
  double a[{N}], o[{N}], da[{N}], dO[{N}];
  fz_P p, dp;
{wsd}{wsr0}  fz_unpack(X + 3, {N}, a, o, &p, {K});
  fz_unpack(W + 1, {N}, da, dO, &dp, {K});
  fz_G3 g = __enzyme_autodiff_g3((void *){name}, {out}X[0], {out}X[1], {out}X[2], {dup}a, da, {dup}o, dO, {dup}&p, &dp, {wsf}{cn}{N});
{settle("reverse")}  G[0] = g.d0; G[1] = g.d1; G[2] = g.d2;
  fz_pack(G + 3, {N}, da, dO, &dp);
  Yp[0] = 0;
  fz_pack(Yp + 1, {N}, a, o, &p);
}}
static void {name}_vec(const double *X, const double *V1, const double *V2, double *JV1, double *JV2) {{
  double a[{N}], o[{N}], da1[{N}], dO1[{N}], da2[{N}], dO2[{N}];
  fz_P p, dp1, dp2;
{wsd}  fz_unpack(X + 3, {N}, a, o, &p, {K});
  fz_unpack(V1 + 3, {N}, da1, dO1, &dp1, {K});
  fz_unpack(V2 + 3, {N}, da2, dO2, &dp2, {K});
  fz_T2 t = __enzyme_fwddiff_w2((void *){name}, enzyme_width, 2, {dup}X[0], V1[0], V2[0], {dup}X[1], V1[1], V2[1],
      {dup}X[2], V1[2], V2[2], {dup}a, da1, da2, {dup}o, dO1, dO2, {dup}&p, &dp1, &dp2, {wsv}{cn}{N});
{settle("vector")}  JV1[0] = t.d[0];
  JV2[0] = t.d[1];
  fz_pack(JV1 + 1, {N}, da1, dO1, &dp1);
  fz_pack(JV2 + 1, {N}, da2, dO2, &dp2);
}}
static void {name}_vrev(const double *X, const double *W1, const double *W2, double *Yp, double *G1, double *G2) {{
  double a[{N}], o[{N}], da1[{N}], dO1[{N}], da2[{N}], dO2[{N}];
  fz_P p, dp1, dp2;
{wsd}{wsr2}  fz_unpack(X + 3, {N}, a, o, &p, {K});
  fz_unpack(W1 + 1, {N}, da1, dO1, &dp1, {K});
  fz_unpack(W2 + 1, {N}, da2, dO2, &dp2, {K});
  fz_G3x2 g = __enzyme_autodiff_g3x2((void *){name}, enzyme_width, 2, {out}X[0], {out}X[1], {out}X[2], {dup}a, da1, da2,
      {dup}o, dO1, dO2, {dup}&p, &dp1, &dp2, {wsv}{cn}{N}, W1[0], W2[0]);
{settle("vector reverse")}  G1[0] = g.d0[0]; G1[1] = g.d1[0]; G1[2] = g.d2[0];
  G2[0] = g.d0[1]; G2[1] = g.d1[1]; G2[2] = g.d2[1];
  fz_pack(G1 + 3, {N}, da1, dO1, &dp1);
  fz_pack(G2 + 3, {N}, da2, dO2, &dp2);
  Yp[0] = 0;
  fz_pack(Yp + 1, {N}, a, o, &p);
}}
#endif
''', nin, nout


def gen_function(seed, index, mem_rate=fuzzmem.DEFAULT_RATE, mem_features=fuzzmem.DEFAULT_FEATURES, nested=False):
    """Text of function #index of the stream `seed`, its wrappers, its table entry, and whether
    it uses the arena."""
    r = random.Random(seed * 1000003 + index)
    # the memory features' own stream (fuzzmem.py)
    m = random.Random((seed * 1000003 + index) ^ 0x6D656D)
    mem = fuzzmem.pick_features(m, list(mem_features)) if m.random() < mem_rate else set()
    name = "f%d" % index
    N = r.choice([3, 4, 5])
    K = r.randrange(0, 7)
    fg = FuncGen(r, name, m, mem)
    body = fg.generate()
    w, nin, nout = wrappers(r, name, N, K, fg.ws, fg.uses_arena)
    # Nesting draws nothing from r: the streams stay those of the first-order runs. Not for arena
    # users: the harness counts live arena blocks inside the wrappers, where the outer derivative's
    # own shadow blocks are still live.
    nested = nested and not fg.uses_arena
    nest = ", FZ_AD(%s_fwd_rev), FZ_AD(%s_rev_fwd)" % (name, name) if nested else ""
    if nested:
        w += NESTED_WRAPPERS.format(name=name, nin=nin, nout=nout)
    entry = '  {"%s (seed %d index %d)", %d, %d, %d, %s_primal, FZ_AD(%s_fwd), FZ_AD(%s_rev), FZ_AD(%s_vec), FZ_AD(%s_vrev)%s},\n' % (
        name, seed, index, index, nin, nout, name, name, name, name, name, nest)
    return body + w, entry, fg.uses_arena


def gen_file(seed, first, count, mem_rate=fuzzmem.DEFAULT_RATE, mem_features=fuzzmem.DEFAULT_FEATURES, nested=False):
    opts = " --nested" if nested else ""
    if mem_rate != fuzzmem.DEFAULT_RATE:
        opts += " --mem %g" % mem_rate
    if list(mem_features) != fuzzmem.DEFAULT_FEATURES:
        opts += " --mem-features %s" % (",".join(mem_features) or "none")
    parts = ["/* Generated by tools/fuzzgen/fuzzgen.py --seed %d --first %d --count %d%s */\n" % (seed, first, count, opts),
             HARNESS]
    table = []
    arena = False
    for k in range(first, first + count):
        text, entry, uses_arena = gen_function(seed, k, mem_rate, mem_features, nested)
        if uses_arena and not arena:
            arena = True
            parts.append(fuzzmem.ARENA)
        parts.append("\n/* ---- function %d ---- */\n" % k)
        parts.append(text)
        table.append(entry)
    parts.append("\nstatic const fz_fn fz_fns[] = {\n%s};\n" % "".join(table))
    parts.append("int main(int argc, char **argv) {\n"
                 "  return fz_main(fz_fns, (int)(sizeof fz_fns / sizeof fz_fns[0]), %dull, argc, argv);\n}\n" % seed)
    return "".join(parts)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--count", type=int, default=20)
    ap.add_argument("--index", type=int, help="generate only this function (a reproducer)")
    ap.add_argument("--out", default="-")
    ap.add_argument("--mem", type=float, default=fuzzmem.DEFAULT_RATE,
                    help="fraction of functions with memory features (0: the streams from before them)")
    ap.add_argument("--mem-features", default=",".join(fuzzmem.DEFAULT_FEATURES),
                    help="comma-separated subset of %s, or 'all' or 'none'" % ",".join(fuzzmem.FEATURES))
    ap.add_argument("--nested", action="store_true",
                    help="also check second order: forward over reverse and reverse over forward of each function")
    a = ap.parse_args()
    if a.index is not None:
        a.first, a.count = a.index, 1
    feats = {"all": ",".join(fuzzmem.FEATURES), "none": ""}.get(a.mem_features, a.mem_features)
    feats = [f for f in feats.split(",") if f]
    for f in feats:
        if f not in fuzzmem.FEATURES:
            ap.error("unknown memory feature %r (known: %s)" % (f, ", ".join(fuzzmem.FEATURES)))
    text = gen_file(a.seed, a.first, a.count, a.mem, feats, a.nested)
    if a.out == "-":
        sys.stdout.write(text)
    else:
        with open(a.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
