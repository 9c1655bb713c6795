// Derivatives of CBLAS calls (libsynthase_blas.a, linked by synthase-cc), single and double
// precision (Routines.inc, included once for each). The plugin registers
// them for the CBLAS functions a module calls (lib/Rules/BLAS.cpp) in Enzyme's custom-derivative
// convention:
//   __synthase_blas_X_fwd(each argument followed by its tangent) -> {result, tangent} or void
//   __synthase_blas_X_aug(integers and pointers followed by their shadows, floats alone) -> tape
//     (or {tape, result})
//   __synthase_blas_X_rev(as _aug, [the result's adjoint], tape) -> the adjoints of the floats
// A shadow the engine does not have (constant memory) arrives as a null pointer: its
// contribution is skipped. The augmented call keeps copies of the inputs the reverse sweep
// reads, since the caller may overwrite them before it runs.
#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef CBLAS_INT I;

/* A matrix stored as `lines` lines (rows in row-major, columns in column-major) of `len` used
   elements, ld apart: the elements only, never the padding after the last line. */
static size_t matrixSpan(I lines, I len, I ld) { return lines <= 0 || len <= 0 ? 0 : (size_t)(lines - 1) * ld + len; }
/* The lines of an m-by-n matrix as stored: rows in row-major, columns in column-major. */
static I linesOf(CBLAS_LAYOUT L, I m, I n) { return L == CblasRowMajor ? m : n; }
static I lenOf(CBLAS_LAYOUT L, I m, I n) { return L == CblasRowMajor ? n : m; }
static CBLAS_TRANSPOSE flip(CBLAS_TRANSPOSE t) { return t == CblasNoTrans ? CblasTrans : CblasNoTrans; }
static int transposed(CBLAS_TRANSPOSE t) { return t != CblasNoTrans; }
/* The lengths of x and y for op(A) with A m-by-n. */
static I gemvXLen(CBLAS_TRANSPOSE t, I m, I n) { return transposed(t) ? m : n; }
static I gemvYLen(CBLAS_TRANSPOSE t, I m, I n) { return transposed(t) ? n : m; }
/* op(A) is m-by-k: A is stored m-by-k, or k-by-m when transposed. */
static I rowsOf(CBLAS_TRANSPOSE t, I r, I c) { return transposed(t) ? c : r; }

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

#define REAL double
#define BL(x) CAT(cblas_d, x)
#define RT(x) CAT(__synthase_blas_d, x)
#define H(x) CAT(x, _d)
#include "Routines.inc"
#undef REAL
#undef BL
#undef RT
#undef H

#define REAL float
#define BL(x) CAT(cblas_s, x)
#define RT(x) CAT(__synthase_blas_s, x)
#define H(x) CAT(x, _s)
#include "Routines.inc"
