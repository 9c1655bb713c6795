// Nested derivatives in every combination: forward over reverse, reverse over reverse, reverse
// over forward, forward over forward, and third order (fwd∘fwd∘rev, rev∘fwd∘rev, rev∘rev∘rev).
// Hessians of a small analytic function are compared with the analytic Hessian (1e-12); Hessians
// of a function with a loop and a branch (whose inner tape grows past the frame buffer, so the
// outer derivative differentiates the tape's growth too) with central differences of the
// gradient (1e-6) and with each other (1e-12), also over a split-mode gradient; Hessian-vector
// products (a Newton-CG step's building block) from each nesting against central differences of
// the gradient along v (1e-6).
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O0 -I%inputs %s -o %t4 -lm && %t4
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t5 -lm && %t5
#include "check.h"

#ifdef __cplusplus
extern "C" {
#endif
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);
#ifdef __cplusplus
}
#endif

/* ---- a scalar function of three variables, with its analytic Hessian ---- */
/* f(x) = sin(x0) x1^2 + x0^3 x2 + exp(x1 x2) */
static double f3(const double *x) { return sin(x[0]) * x[1] * x[1] + x[0] * x[0] * x[0] * x[2] + exp(x[1] * x[2]); }

static void f3_hessian(const double *x, double H[3][3]) {
  double e = exp(x[1] * x[2]);
  H[0][0] = -sin(x[0]) * x[1] * x[1] + 6 * x[0] * x[2];
  H[0][1] = H[1][0] = 2 * cos(x[0]) * x[1];
  H[0][2] = H[2][0] = 3 * x[0] * x[0];
  H[1][1] = 2 * sin(x[0]) + x[2] * x[2] * e;
  H[1][2] = H[2][1] = e * (1 + x[1] * x[2]);
  H[2][2] = x[1] * x[1] * e;
}

/* gradient into dx (zeroed first), by reverse mode */
static void f3_grad(const double *x, double *dx) {
  for (int i = 0; i < 3; ++i)
    dx[i] = 0;
  __enzyme_autodiff((void *)f3, enzyme_dup, x, dx);
}
/* directional derivative along v, by forward mode */
static double f3_jvp(const double *x, const double *v) { return __enzyme_fwddiff((void *)f3, enzyme_dup, x, v); }

/* ---- a loop with a branch and a recurrence: the inner tape holds one value per iteration ---- */
#define LOOP_N 300
static double coef[LOOP_N];

static double floop(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) {
    double t = x[0] * coef[i] + x[1];
    if (t > 0.5)
      s = 0.9 * s + sin(t * (1 + 0.1 * s)) * x[2];
    else
      s = s + t * t * x[2] * x[2];
  }
  return s;
}
static void floop_grad(const double *x, double *dx, int n) {
  for (int i = 0; i < 3; ++i)
    dx[i] = 0;
  __enzyme_autodiff((void *)floop, enzyme_dup, x, dx, enzyme_const, n);
}
/* the same gradient through split mode: the outer derivative sees the heap tape block */
static void floop_grad_split(const double *x, double *dx, int n) {
  for (int i = 0; i < 3; ++i)
    dx[i] = 0;
  void *tape = __enzyme_augmentfwd((void *)floop, enzyme_dup, x, dx, enzyme_const, n);
  __enzyme_reverse((void *)floop, enzyme_dup, x, dx, enzyme_const, n, 1.0, tape);
}
static double floop_jvp(const double *x, const double *v, int n) {
  return __enzyme_fwddiff((void *)floop, enzyme_dup, x, v, enzyme_const, n);
}

typedef double (*objective3)(const double *);

/* Column j of the Hessian by each nesting. `which`: 0 fwd∘rev, 1 rev∘rev, 2 rev∘fwd, 3 fwd∘fwd */
static void hess_col_f3(int which, const double *x, int j, double *col) {
  double v[3] = {0, 0, 0}, dx[3], out[3] = {0, 0, 0};
  v[j] = 1;
  switch (which) {
  case 0: /* d/dε grad(x + ε v) */
    __enzyme_fwddiff((void *)f3_grad, enzyme_dup, x, v, enzyme_dup, dx, out);
    break;
  case 1: { /* reverse of grad seeded with v: Hᵀ v */
    double seed[3] = {0, 0, 0};
    seed[j] = 1;
    __enzyme_autodiff((void *)f3_grad, enzyme_dup, x, out, enzyme_dup, dx, seed);
    break;
  }
  case 2: { /* gradient of x ↦ ∇f(x)·v */
    double dv[3] = {0, 0, 0};
    __enzyme_autodiff((void *)f3_jvp, enzyme_dup, x, out, enzyme_dup, v, dv);
    break;
  }
  case 3: /* e_iᵀ H v, one forward call per row */
    for (int i = 0; i < 3; ++i) {
      double e[3] = {0, 0, 0};
      e[i] = 1;
      out[i] = __enzyme_fwddiff((void *)f3_jvp, enzyme_dup, x, e, enzyme_const, v);
    }
    break;
  }
  for (int i = 0; i < 3; ++i)
    col[i] = out[i];
}

static void hess_col_loop(int which, const double *x, int j, double *col) {
  double v[3] = {0, 0, 0}, dx[3], out[3] = {0, 0, 0};
  v[j] = 1;
  switch (which) {
  case 0:
    __enzyme_fwddiff((void *)floop_grad, enzyme_dup, x, v, enzyme_dup, dx, out, enzyme_const, LOOP_N);
    break;
  case 1: {
    double seed[3] = {0, 0, 0};
    seed[j] = 1;
    __enzyme_autodiff((void *)floop_grad, enzyme_dup, x, out, enzyme_dup, dx, seed, enzyme_const, LOOP_N);
    break;
  }
  case 2: {
    double dv[3] = {0, 0, 0};
    __enzyme_autodiff((void *)floop_jvp, enzyme_dup, x, out, enzyme_dup, v, dv, enzyme_const, LOOP_N);
    break;
  }
  case 3:
    for (int i = 0; i < 3; ++i) {
      double e[3] = {0, 0, 0};
      e[i] = 1;
      out[i] = __enzyme_fwddiff((void *)floop_jvp, enzyme_dup, x, e, enzyme_const, v, enzyme_const, LOOP_N);
    }
    break;
  }
  for (int i = 0; i < 3; ++i)
    col[i] = out[i];
}

static const char *names[4] = {"fwd∘rev", "rev∘rev", "rev∘fwd", "fwd∘fwd"};

static void hessians(void) {
  double x[3] = {0.7, -0.4, 0.9}, H[3][3];
  f3_hessian(x, H);
  for (int w = 0; w < 4; ++w)
    for (int j = 0; j < 3; ++j) {
      double col[3];
      hess_col_f3(w, x, j, col);
      for (int i = 0; i < 3; ++i)
        CHECK_CLOSE(col[i], H[i][j], 1e-12, "f3 Hessian [%d][%d] by %s vs analytic", i, j, names[w]);
    }
}

static void loop_hessians(void) {
  for (int i = 0; i < LOOP_N; ++i)
    coef[i] = cos(0.1 * i);
  double x[3] = {0.4, 0.3, 1.2};
  for (int j = 0; j < 3; ++j) {
    /* central differences of the reverse gradient */
    double xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]}, gp[3], gm[3], ref[3];
    const double h = 1e-6;
    xp[j] += h;
    xm[j] -= h;
    floop_grad(xp, gp, LOOP_N);
    floop_grad(xm, gm, LOOP_N);
    hess_col_loop(0, x, j, ref);
    for (int i = 0; i < 3; ++i)
      CHECK_CLOSE(ref[i], (gp[i] - gm[i]) / (2 * h), 1e-6, "loop Hessian [%d][%d] by fwd∘rev vs FD", i, j);
    for (int w = 1; w < 4; ++w) {
      double col[3];
      hess_col_loop(w, x, j, col);
      for (int i = 0; i < 3; ++i)
        CHECK_CLOSE(col[i], ref[i], 1e-12, "loop Hessian [%d][%d] by %s vs fwd∘rev", i, j, names[w]);
    }
    /* over split mode: forward, and reverse seeded with e_j */
    double v[3] = {0, 0, 0}, dx[3], fs[3] = {0, 0, 0}, rs[3] = {0, 0, 0}, seed[3] = {0, 0, 0};
    v[j] = seed[j] = 1;
    __enzyme_fwddiff((void *)floop_grad_split, enzyme_dup, x, v, enzyme_dup, dx, fs, enzyme_const, LOOP_N);
    __enzyme_autodiff((void *)floop_grad_split, enzyme_dup, x, rs, enzyme_dup, dx, seed, enzyme_const, LOOP_N);
    for (int i = 0; i < 3; ++i) {
      CHECK_CLOSE(fs[i], ref[i], 1e-12, "loop Hessian [%d][%d] by fwd∘split vs fwd∘rev", i, j);
      CHECK_CLOSE(rs[i], ref[i], 1e-12, "loop Hessian [%d][%d] by rev∘split vs fwd∘rev", i, j);
    }
  }
}

/* ---- third order: g(x) = x^2 sin(x) + exp(2x), g''' analytic ---- */
static double g(double x) { return x * x * sin(x) + exp(2 * x); }
static double g1_rev(double x) { return __enzyme_autodiff((void *)g, enzyme_out, x); }
static double g2_fr(double x) { return __enzyme_fwddiff((void *)g1_rev, enzyme_dup, x, 1.0); }
static double g2_rr(double x) { return __enzyme_autodiff((void *)g1_rev, enzyme_out, x); }
static double g3_ffr(double x) { return __enzyme_fwddiff((void *)g2_fr, enzyme_dup, x, 1.0); }
static double g3_rfr(double x) { return __enzyme_autodiff((void *)g2_fr, enzyme_out, x); }
static double g3_rrr(double x) { return __enzyme_autodiff((void *)g2_rr, enzyme_out, x); }
static double g3_frr(double x) { return __enzyme_fwddiff((void *)g2_rr, enzyme_dup, x, 1.0); }

static void third_order(void) {
  for (double x = -1.0; x <= 1.0; x += 0.5) {
    double s = sin(x), c = cos(x);
    double d2 = 2 * s + 4 * x * c - x * x * s + 4 * exp(2 * x);
    double d3 = 6 * c - 6 * x * s - x * x * c + 8 * exp(2 * x);
    CHECK_CLOSE(g2_fr(x), d2, 1e-12, "g'' by fwd∘rev at %g", x);
    CHECK_CLOSE(g2_rr(x), d2, 1e-12, "g'' by rev∘rev at %g", x);
    CHECK_CLOSE(g3_ffr(x), d3, 1e-12, "g''' by fwd∘fwd∘rev at %g", x);
    CHECK_CLOSE(g3_rfr(x), d3, 1e-12, "g''' by rev∘fwd∘rev at %g", x);
    CHECK_CLOSE(g3_rrr(x), d3, 1e-12, "g''' by rev∘rev∘rev at %g", x);
    CHECK_CLOSE(g3_frr(x), d3, 1e-12, "g''' by fwd∘rev∘rev at %g", x);
  }
}

/* ---- Hessian-vector products, as a Newton-CG step uses them ---- */
static void hvp(int which, const double *x, const double *v, double *out) {
  double col[3];
  for (int i = 0; i < 3; ++i)
    out[i] = 0;
  for (int j = 0; j < 3; ++j) {
    hess_col_loop(which, x, j, col);
    for (int i = 0; i < 3; ++i)
      out[i] += col[i] * v[j];
  }
}

static void hessian_vector_products(void) {
  double x[3] = {0.4, 0.3, 1.2}, v[3] = {0.3, -0.7, 0.5};
  double ref[3];
  /* H v by central differences of the gradient along v */
  const double h = 1e-6;
  double xp[3], xm[3], gp[3], gm[3];
  for (int i = 0; i < 3; ++i) {
    xp[i] = x[i] + h * v[i];
    xm[i] = x[i] - h * v[i];
  }
  floop_grad(xp, gp, LOOP_N);
  floop_grad(xm, gm, LOOP_N);
  for (int i = 0; i < 3; ++i)
    ref[i] = (gp[i] - gm[i]) / (2 * h);
  for (int w = 0; w < 4; ++w) {
    double out[3];
    hvp(w, x, v, out);
    for (int i = 0; i < 3; ++i)
      CHECK_CLOSE(out[i], ref[i], 1e-6, "Hessian-vector product [%d] by %s vs FD of the gradient", i, names[w]);
  }
}

int main(void) {
  hessians();
  loop_hessians();
  third_order();
  hessian_vector_products();
  return check_report();
}
