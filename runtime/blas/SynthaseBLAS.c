// Derivatives of CBLAS calls (libsynthase_blas.a, linked by synthase-cc). The plugin registers
// them for the CBLAS functions a module calls (lib/Rules/BLAS.cpp) in Enzyme's custom-derivative
// convention:
//   __synthase_blas_X_fwd(each argument followed by its tangent) -> {result, tangent} or void
//   __synthase_blas_X_aug(integers and pointers followed by their shadows, doubles alone) -> tape
//     (or {tape, result})
//   __synthase_blas_X_rev(as _aug, [the result's adjoint], tape) -> the adjoints of the doubles
// A shadow the engine does not have (constant memory) arrives as a null pointer: its
// contribution is skipped. The augmented call keeps copies of the inputs the reverse sweep
// reads, since the caller may overwrite them before it runs.
#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef CBLAS_INT I;
typedef struct {
  double a, b;
} Pair;
typedef struct {
  void *tape;
  double r;
} TapeAndResult;

/* A vector of n elements at stride inc, copied to unit stride (NULL when n <= 0). */
static double *keepVector(I n, const double *x, I inc) {
  if (n <= 0)
    return NULL;
  double *t = malloc(sizeof(double) * (size_t)n);
  cblas_dcopy(n, x, inc, t, 1);
  return t;
}

/* A matrix stored as `lines` lines (rows in row-major, columns in column-major) of `len` used
   elements, ld apart: the elements only, never the padding after the last line. */
static size_t matrixSpan(I lines, I len, I ld) { return lines <= 0 || len <= 0 ? 0 : (size_t)(lines - 1) * ld + len; }

static double *keepMatrix(I lines, I len, I ld, const double *a) {
  size_t n = matrixSpan(lines, len, ld);
  if (!n)
    return NULL;
  double *t = malloc(sizeof(double) * n);
  memcpy(t, a, sizeof(double) * n);
  return t;
}

/* The lines of an m-by-n matrix as stored: rows in row-major, columns in column-major. */
static I linesOf(CBLAS_LAYOUT L, I m, I n) { return L == CblasRowMajor ? m : n; }
static I lenOf(CBLAS_LAYOUT L, I m, I n) { return L == CblasRowMajor ? n : m; }

static void scaleMatrix(CBLAS_LAYOUT L, I m, I n, double s, double *c, I ld) {
  for (I i = 0; i < linesOf(L, m, n); i++) {
    double *line = c + (size_t)i * ld;
    if (s == 0)
      memset(line, 0, sizeof(double) * (size_t)lenOf(L, m, n));
    else
      cblas_dscal(lenOf(L, m, n), s, line, 1);
  }
}

/* Sum of a .* b over an m-by-n matrix region. */
static double dotMatrix(CBLAS_LAYOUT L, I m, I n, const double *a, I lda, const double *b, I ldb) {
  double s = 0;
  for (I i = 0; i < linesOf(L, m, n); i++)
    s += cblas_ddot(lenOf(L, m, n), a + (size_t)i * lda, 1, b + (size_t)i * ldb, 1);
  return s;
}

static CBLAS_TRANSPOSE flip(CBLAS_TRANSPOSE t) { return t == CblasNoTrans ? CblasTrans : CblasNoTrans; }
static int transposed(CBLAS_TRANSPOSE t) { return t != CblasNoTrans; }

/* ---------------- ddot: r = x . y ---------------- */

Pair __synthase_blas_ddot_fwd(I n, I n_, const double *x, const double *dx, I incx, I incx_, const double *y,
                              const double *dy, I incy, I incy_) {
  Pair p = {cblas_ddot(n, x, incx, y, incy), 0};
  if (dx)
    p.b += cblas_ddot(n, dx, incx, y, incy);
  if (dy)
    p.b += cblas_ddot(n, x, incx, dy, incy);
  return p;
}

typedef struct {
  double *x, *y;
} DotTape;

TapeAndResult __synthase_blas_ddot_aug(I n, I n_, const double *x, double *dx, I incx, I incx_, const double *y,
                                       double *dy, I incy, I incy_) {
  DotTape *t = calloc(1, sizeof *t);
  if (dy)
    t->x = keepVector(n, x, incx);
  if (dx)
    t->y = keepVector(n, y, incy);
  TapeAndResult r = {t, cblas_ddot(n, x, incx, y, incy)};
  return r;
}

void __synthase_blas_ddot_rev(I n, I n_, const double *x, double *dx, I incx, I incx_, const double *y, double *dy,
                              I incy, I incy_, double dr, void *tape) {
  DotTape *t = tape;
  if (dx && t->y)
    cblas_daxpy(n, dr, t->y, 1, dx, incx);
  if (dy && t->x)
    cblas_daxpy(n, dr, t->x, 1, dy, incy);
  free(t->x), free(t->y), free(t);
}

/* ---------------- dnrm2: r = |x| ---------------- */

Pair __synthase_blas_dnrm2_fwd(I n, I n_, const double *x, const double *dx, I incx, I incx_) {
  Pair p = {cblas_dnrm2(n, x, incx), 0};
  if (dx && p.a > 0)
    p.b = cblas_ddot(n, x, incx, dx, incx) / p.a;
  return p;
}

TapeAndResult __synthase_blas_dnrm2_aug(I n, I n_, const double *x, double *dx, I incx, I incx_) {
  TapeAndResult r = {dx ? keepVector(n, x, incx) : NULL, cblas_dnrm2(n, x, incx)};
  return r;
}

void __synthase_blas_dnrm2_rev(I n, I n_, const double *x, double *dx, I incx, I incx_, double dr, void *tape) {
  double *t = tape;
  if (dx && t) {
    double r = cblas_dnrm2(n, t, 1);
    if (r > 0)
      cblas_daxpy(n, dr / r, t, 1, dx, incx);
  }
  free(t);
}

/* ---------------- daxpy: y += alpha x ---------------- */

void __synthase_blas_daxpy_fwd(I n, I n_, double alpha, double dalpha, const double *x, const double *dx, I incx,
                               I incx_, double *y, double *dy, I incy, I incy_) {
  if (dy) {
    if (dx)
      cblas_daxpy(n, alpha, dx, incx, dy, incy);
    if (dalpha != 0)
      cblas_daxpy(n, dalpha, x, incx, dy, incy);
  }
  cblas_daxpy(n, alpha, x, incx, y, incy);
}

void *__synthase_blas_daxpy_aug(I n, I n_, double alpha, const double *x, double *dx, I incx, I incx_, double *y,
                                double *dy, I incy, I incy_) {
  double *t = dy ? keepVector(n, x, incx) : NULL;
  cblas_daxpy(n, alpha, x, incx, y, incy);
  return t;
}

double __synthase_blas_daxpy_rev(I n, I n_, double alpha, const double *x, double *dx, I incx, I incx_, double *y,
                                 double *dy, I incy, I incy_, void *tape) {
  double *t = tape, dalpha = 0;
  if (dy) {
    if (dx)
      cblas_daxpy(n, alpha, dy, incy, dx, incx);
    if (t)
      dalpha = cblas_ddot(n, t, 1, dy, incy);
  }
  free(t);
  return dalpha;
}

/* ---------------- dscal: x *= alpha ---------------- */

void __synthase_blas_dscal_fwd(I n, I n_, double alpha, double dalpha, double *x, double *dx, I incx, I incx_) {
  if (dx) {
    cblas_dscal(n, alpha, dx, incx);
    if (dalpha != 0)
      cblas_daxpy(n, dalpha, x, incx, dx, incx);
  }
  cblas_dscal(n, alpha, x, incx);
}

void *__synthase_blas_dscal_aug(I n, I n_, double alpha, double *x, double *dx, I incx, I incx_) {
  double *t = dx ? keepVector(n, x, incx) : NULL;
  cblas_dscal(n, alpha, x, incx);
  return t;
}

double __synthase_blas_dscal_rev(I n, I n_, double alpha, double *x, double *dx, I incx, I incx_, void *tape) {
  double *t = tape, dalpha = 0;
  if (dx) {
    if (t)
      dalpha = cblas_ddot(n, t, 1, dx, incx);
    cblas_dscal(n, alpha, dx, incx);
  }
  free(t);
  return dalpha;
}

/* ---------------- dcopy: y = x;  dswap: x <-> y ---------------- */

/* The n elements of a vector at stride inc set to zero. */
static void zeroVector(I n, double *d, I inc) {
  for (I i = 0; i < n; i++)
    d[(inc > 0 ? i : i - n + 1) * inc] = 0;
}

/* An adjoint moved from dy into dx (a copy's reverse): dx += dy, dy = 0. */
static void moveAdjoint(I n, double *dx, I incx, double *dy, I incy) {
  if (dx && dy)
    cblas_daxpy(n, 1.0, dy, incy, dx, incx);
  if (dy)
    zeroVector(n, dy, incy);
}

void __synthase_blas_dcopy_fwd(I n, I n_, const double *x, const double *dx, I incx, I incx_, double *y, double *dy,
                               I incy, I incy_) {
  if (dy) {
    if (dx)
      cblas_dcopy(n, dx, incx, dy, incy);
    else
      zeroVector(n, dy, incy);
  }
  cblas_dcopy(n, x, incx, y, incy);
}

void *__synthase_blas_dcopy_aug(I n, I n_, const double *x, double *dx, I incx, I incx_, double *y, double *dy, I incy,
                                I incy_) {
  cblas_dcopy(n, x, incx, y, incy);
  return NULL;
}

void __synthase_blas_dcopy_rev(I n, I n_, const double *x, double *dx, I incx, I incx_, double *y, double *dy, I incy,
                               I incy_, void *tape) {
  moveAdjoint(n, dx, incx, dy, incy);
}

void __synthase_blas_dswap_fwd(I n, I n_, double *x, double *dx, I incx, I incx_, double *y, double *dy, I incy,
                               I incy_) {
  if (dx && dy)
    cblas_dswap(n, dx, incx, dy, incy);
  else if (dx)
    zeroVector(n, dx, incx);
  else if (dy)
    zeroVector(n, dy, incy);
  cblas_dswap(n, x, incx, y, incy);
}

void *__synthase_blas_dswap_aug(I n, I n_, double *x, double *dx, I incx, I incx_, double *y, double *dy, I incy,
                                I incy_) {
  cblas_dswap(n, x, incx, y, incy);
  return NULL;
}

void __synthase_blas_dswap_rev(I n, I n_, double *x, double *dx, I incx, I incx_, double *y, double *dy, I incy,
                               I incy_, void *tape) {
  if (dx && dy)
    cblas_dswap(n, dx, incx, dy, incy);
  else if (dx)
    zeroVector(n, dx, incx);
  else if (dy)
    zeroVector(n, dy, incy);
}

/* ---------------- dger: A += alpha x y^T ---------------- */

void __synthase_blas_dger_fwd(CBLAS_LAYOUT L, CBLAS_LAYOUT L_, I m, I m_, I n, I n_, double alpha, double dalpha,
                              const double *x, const double *dx, I incx, I incx_, const double *y, const double *dy,
                              I incy, I incy_, double *a, double *da, I lda, I lda_) {
  if (da) {
    if (dx)
      cblas_dger(L, m, n, alpha, dx, incx, y, incy, da, lda);
    if (dy)
      cblas_dger(L, m, n, alpha, x, incx, dy, incy, da, lda);
    if (dalpha != 0)
      cblas_dger(L, m, n, dalpha, x, incx, y, incy, da, lda);
  }
  cblas_dger(L, m, n, alpha, x, incx, y, incy, a, lda);
}

typedef struct {
  double *x, *y;
} GerTape;

void *__synthase_blas_dger_aug(CBLAS_LAYOUT L, CBLAS_LAYOUT L_, I m, I m_, I n, I n_, double alpha, const double *x,
                               double *dx, I incx, I incx_, const double *y, double *dy, I incy, I incy_, double *a,
                               double *da, I lda, I lda_) {
  GerTape *t = calloc(1, sizeof *t);
  if (da) {
    t->x = keepVector(m, x, incx);
    t->y = keepVector(n, y, incy);
  }
  cblas_dger(L, m, n, alpha, x, incx, y, incy, a, lda);
  return t;
}

double __synthase_blas_dger_rev(CBLAS_LAYOUT L, CBLAS_LAYOUT L_, I m, I m_, I n, I n_, double alpha, const double *x,
                                double *dx, I incx, I incx_, const double *y, double *dy, I incy, I incy_, double *a,
                                double *da, I lda, I lda_, void *tape) {
  GerTape *t = tape;
  double dalpha = 0;
  if (da && t->x && t->y) {
    /* Ā is unchanged; x̄ += alpha Ā y, ȳ += alpha Āᵀ x, ᾱ = xᵀ Ā y. */
    double *ay = malloc(sizeof(double) * (size_t)m);
    cblas_dgemv(L, CblasNoTrans, m, n, 1.0, da, lda, t->y, 1, 0.0, ay, 1);
    dalpha = cblas_ddot(m, t->x, 1, ay, 1);
    if (dx)
      cblas_daxpy(m, alpha, ay, 1, dx, incx);
    free(ay);
    if (dy)
      cblas_dgemv(L, CblasTrans, m, n, alpha, da, lda, t->x, 1, 1.0, dy, incy);
  }
  free(t->x), free(t->y), free(t);
  return dalpha;
}

/* ---------------- dgemv: y = alpha op(A) x + beta y ---------------- */

/* The lengths of x and y for op(A) with A m-by-n. */
static I gemvXLen(CBLAS_TRANSPOSE t, I m, I n) { return transposed(t) ? m : n; }
static I gemvYLen(CBLAS_TRANSPOSE t, I m, I n) { return transposed(t) ? n : m; }

void __synthase_blas_dgemv_fwd(CBLAS_LAYOUT L, CBLAS_LAYOUT L_, CBLAS_TRANSPOSE T, CBLAS_TRANSPOSE T_, I m, I m_, I n,
                               I n_, double alpha, double dalpha, const double *a, const double *da, I lda, I lda_,
                               const double *x, const double *dx, I incx, I incx_, double beta, double dbeta, double *y,
                               double *dy, I incy, I incy_) {
  I ny = gemvYLen(T, m, n);
  if (dy) {
    if (beta == 0) {
      zeroVector(ny, dy, incy);
    } else {
      cblas_dscal(ny, beta, dy, incy);
      if (dbeta != 0)
        cblas_daxpy(ny, dbeta, y, incy, dy, incy);
    }
    if (da)
      cblas_dgemv(L, T, m, n, alpha, da, lda, x, incx, 1.0, dy, incy);
    if (dx)
      cblas_dgemv(L, T, m, n, alpha, a, lda, dx, incx, 1.0, dy, incy);
    if (dalpha != 0)
      cblas_dgemv(L, T, m, n, dalpha, a, lda, x, incx, 1.0, dy, incy);
  }
  cblas_dgemv(L, T, m, n, alpha, a, lda, x, incx, beta, y, incy);
}

typedef struct {
  double *a, *x, *y;
} GemvTape;

void *__synthase_blas_dgemv_aug(CBLAS_LAYOUT L, CBLAS_LAYOUT L_, CBLAS_TRANSPOSE T, CBLAS_TRANSPOSE T_, I m, I m_, I n,
                                I n_, double alpha, const double *a, double *da, I lda, I lda_, const double *x,
                                double *dx, I incx, I incx_, double beta, double *y, double *dy, I incy, I incy_) {
  GemvTape *t = calloc(1, sizeof *t);
  if (dy) {
    t->a = keepMatrix(linesOf(L, m, n), lenOf(L, m, n), lda, a);
    t->x = keepVector(gemvXLen(T, m, n), x, incx);
    if (beta != 0)
      t->y = keepVector(gemvYLen(T, m, n), y, incy);
  }
  cblas_dgemv(L, T, m, n, alpha, a, lda, x, incx, beta, y, incy);
  return t;
}

Pair __synthase_blas_dgemv_rev(CBLAS_LAYOUT L, CBLAS_LAYOUT L_, CBLAS_TRANSPOSE T, CBLAS_TRANSPOSE T_, I m, I m_, I n,
                               I n_, double alpha, const double *a, double *da, I lda, I lda_, const double *x,
                               double *dx, I incx, I incx_, double beta, double *y, double *dy, I incy, I incy_,
                               void *tape) {
  GemvTape *t = tape;
  Pair d = {0, 0};
  I nx = gemvXLen(T, m, n), ny = gemvYLen(T, m, n);
  if (dy && ny > 0) {
    double *ybar = keepVector(ny, dy, incy);
    if (t->a && t->x) {
      double *ax = malloc(sizeof(double) * (size_t)ny);
      cblas_dgemv(L, T, m, n, 1.0, t->a, lda, t->x, 1, 0.0, ax, 1);
      d.a = cblas_ddot(ny, ax, 1, ybar, 1);
      free(ax);
    }
    if (t->y)
      d.b = cblas_ddot(ny, t->y, 1, ybar, 1);
    if (dx && t->a && nx > 0)
      cblas_dgemv(L, flip(T), m, n, alpha, t->a, lda, ybar, 1, 1.0, dx, incx);
    if (da && t->x) {
      if (transposed(T))
        cblas_dger(L, m, n, alpha, t->x, 1, ybar, 1, da, lda);
      else
        cblas_dger(L, m, n, alpha, ybar, 1, t->x, 1, da, lda);
    }
    if (beta == 0) {
      zeroVector(ny, dy, incy);
    } else {
      cblas_dscal(ny, beta, dy, incy);
    }
    free(ybar);
  }
  free(t->a), free(t->x), free(t->y), free(t);
  return d;
}

/* ---------------- dgemm: C = alpha op(A) op(B) + beta C ---------------- */

/* op(A) is m-by-k: A is stored m-by-k, or k-by-m when transposed. */
static I rowsOf(CBLAS_TRANSPOSE t, I r, I c) { return transposed(t) ? c : r; }

void __synthase_blas_dgemm_fwd(CBLAS_LAYOUT L, CBLAS_LAYOUT L_, CBLAS_TRANSPOSE TA, CBLAS_TRANSPOSE TA_,
                               CBLAS_TRANSPOSE TB, CBLAS_TRANSPOSE TB_, I m, I m_, I n, I n_, I k, I k_, double alpha,
                               double dalpha, const double *a, const double *da, I lda, I lda_, const double *b,
                               const double *db, I ldb, I ldb_, double beta, double dbeta, double *c, double *dc,
                               I ldc, I ldc_) {
  if (dc) {
    scaleMatrix(L, m, n, beta, dc, ldc);
    if (beta != 0 && dbeta != 0)
      for (I i = 0; i < linesOf(L, m, n); i++)
        cblas_daxpy(lenOf(L, m, n), dbeta, c + (size_t)i * ldc, 1, dc + (size_t)i * ldc, 1);
    if (da)
      cblas_dgemm(L, TA, TB, m, n, k, alpha, da, lda, b, ldb, 1.0, dc, ldc);
    if (db)
      cblas_dgemm(L, TA, TB, m, n, k, alpha, a, lda, db, ldb, 1.0, dc, ldc);
    if (dalpha != 0)
      cblas_dgemm(L, TA, TB, m, n, k, dalpha, a, lda, b, ldb, 1.0, dc, ldc);
  }
  cblas_dgemm(L, TA, TB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

typedef struct {
  double *a, *b, *c;
} GemmTape;

void *__synthase_blas_dgemm_aug(CBLAS_LAYOUT L, CBLAS_LAYOUT L_, CBLAS_TRANSPOSE TA, CBLAS_TRANSPOSE TA_,
                                CBLAS_TRANSPOSE TB, CBLAS_TRANSPOSE TB_, I m, I m_, I n, I n_, I k, I k_, double alpha,
                                const double *a, double *da, I lda, I lda_, const double *b, double *db, I ldb, I ldb_,
                                double beta, double *c, double *dc, I ldc, I ldc_) {
  GemmTape *t = calloc(1, sizeof *t);
  if (dc) {
    I ar = rowsOf(TA, m, k), ac = rowsOf(TA, k, m), br = rowsOf(TB, k, n), bc = rowsOf(TB, n, k);
    t->a = keepMatrix(linesOf(L, ar, ac), lenOf(L, ar, ac), lda, a);
    t->b = keepMatrix(linesOf(L, br, bc), lenOf(L, br, bc), ldb, b);
    if (beta != 0)
      t->c = keepMatrix(linesOf(L, m, n), lenOf(L, m, n), ldc, c);
  }
  cblas_dgemm(L, TA, TB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  return t;
}

Pair __synthase_blas_dgemm_rev(CBLAS_LAYOUT L, CBLAS_LAYOUT L_, CBLAS_TRANSPOSE TA, CBLAS_TRANSPOSE TA_,
                               CBLAS_TRANSPOSE TB, CBLAS_TRANSPOSE TB_, I m, I m_, I n, I n_, I k, I k_, double alpha,
                               const double *a, double *da, I lda, I lda_, const double *b, double *db, I ldb, I ldb_,
                               double beta, double *c, double *dc, I ldc, I ldc_, void *tape) {
  GemmTape *t = tape;
  Pair d = {0, 0};
  if (dc && m > 0 && n > 0) {
    if (k > 0 && t->a && t->b) {
      /* alpha's adjoint: <C̄, op(A) op(B)>, the product recomputed from the kept inputs. */
      I ldp = lenOf(L, m, n);
      double *p = malloc(sizeof(double) * (size_t)m * n);
      cblas_dgemm(L, TA, TB, m, n, k, 1.0, t->a, lda, t->b, ldb, 0.0, p, ldp);
      d.a = dotMatrix(L, m, n, p, ldp, dc, ldc);
      free(p);
      /* Ā += alpha C̄ op(B)^T (or its transpose), B̄ += alpha op(A)^T C̄ (or its transpose). */
      if (da) {
        if (transposed(TA))
          cblas_dgemm(L, TB, CblasTrans, k, m, n, alpha, t->b, ldb, dc, ldc, 1.0, da, lda);
        else
          cblas_dgemm(L, CblasNoTrans, flip(TB), m, k, n, alpha, dc, ldc, t->b, ldb, 1.0, da, lda);
      }
      if (db) {
        if (transposed(TB))
          cblas_dgemm(L, CblasTrans, TA, n, k, m, alpha, dc, ldc, t->a, lda, 1.0, db, ldb);
        else
          cblas_dgemm(L, flip(TA), CblasNoTrans, k, n, m, alpha, t->a, lda, dc, ldc, 1.0, db, ldb);
      }
    }
    if (t->c)
      d.b = dotMatrix(L, m, n, t->c, ldc, dc, ldc);
    scaleMatrix(L, m, n, beta, dc, ldc);
  }
  free(t->a), free(t->b), free(t->c), free(t);
  return d;
}
