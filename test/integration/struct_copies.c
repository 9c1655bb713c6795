// Structs that hold pointers and floats, copied as bytes (struct assignment and memcpy into heap
// objects, which stay memcpy calls after optimization). The forward sweep must carry the copied
// pointers' shadows along and the reverse sweep must move back the adjoints of the copied floats
// at their own widths. Before, reverse mode treated the copy as doubles, added shadow pointers
// as if they were adjoints and segfaulted in the float tile multiply below (issue 12, class 8).
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O0 -I%inputs %s -o %t4 -lm && %t4
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t5 -lm && %t5
#include "check.h"

typedef struct { float *data; int rows, cols; } Mat;
typedef struct { double x; float m; int tag; double *extra; } Mixed;

static void tile_mul(const Mat *a, const Mat *b, Mat *c) {
  for (int i = 0; i < a->rows; i++)
    for (int j = 0; j < b->cols; j++) {
      float s = 0;
      for (int k = 0; k < a->cols; k++)
        s += a->data[i * a->cols + k] * b->data[k * b->cols + j];
      c->data[i * c->cols + j] = s;
    }
}

/* copies by assignment and by memcpy into heap objects, then a float matrix product */
static float mat_loss(Mat *A, Mat *B, Mat *C) {
  Mat *a2 = (Mat *)malloc(sizeof *a2);
  *a2 = *A;
  Mat *b2 = (Mat *)malloc(sizeof *b2);
  memcpy(b2, B, sizeof *B);
  tile_mul(a2, b2, C);
  float s = 0;
  for (int i = 0; i < C->rows * C->cols; i++)
    s += C->data[i] * C->data[i];
  free(a2);
  free(b2);
  return s;
}

/* a struct of mixed float widths and a pointer, copied whole */
static double mixed_loss(const Mixed *in, int n) {
  Mixed *t = (Mixed *)malloc(sizeof(Mixed) * 2);
  memcpy(&t[1], in, sizeof(Mixed));
  double s = t[1].x * t[1].m + sin(t[1].m);
  for (int i = 0; i < n; i++)
    s += t[1].extra[i] * t[1].x;
  free(t);
  return s;
}

typedef struct { float a[4], b[4], c[4]; } MatCtx;
static double mat_fd(const double *v, void *ctx) {
  MatCtx *k = (MatCtx *)ctx;
  float ad[4], cd[4];
  for (int i = 0; i < 4; i++)
    ad[i] = (float)v[i];
  Mat A = {ad, 2, 2}, B = {k->b, 2, 2}, C = {cd, 2, 2};
  return mat_loss(&A, &B, &C);
}

int main(void) {
  float ad[4] = {1, 2, 3, 4}, bd[4] = {0.5f, -1, 2, 1}, cd[4], dad[4] = {0}, dbd[4] = {0}, dcd[4] = {0};
  Mat A = {ad, 2, 2}, B = {bd, 2, 2}, C = {cd, 2, 2}, dA = {dad, 0, 0}, dB = {dbd, 0, 0}, dC = {dcd, 0, 0};
  __enzyme_autodiff((void *)mat_loss, enzyme_dup, &A, &dA, enzyme_dup, &B, &dB, enzyme_dup, &C, &dC);
  MatCtx k;
  memcpy(k.b, bd, sizeof bd);
  double v[4] = {1, 2, 3, 4};
  /* exact gradient: d/dA sum(C^2) = 2 C B^T */
  float c[4];
  Mat Cc = {c, 2, 2};
  tile_mul(&A, &B, &Cc);
  for (int i = 0; i < 2; i++)
    for (int kk = 0; kk < 2; kk++) {
      double want = 2 * (c[i * 2 + 0] * bd[kk * 2 + 0] + c[i * 2 + 1] * bd[kk * 2 + 1]);
      CHECK_CLOSE(dad[i * 2 + kk], want, 1e-6, "mat_loss reverse d/dA[%d]", i * 2 + kk);
    }
  (void)v;
  (void)mat_fd;
  for (int i = 0; i < 4; i++) {
    float e[4] = {0}, eb[4] = {0}, ec[4] = {0};
    e[i] = 1;
    Mat tA = {e, 2, 2}, tB = {eb, 2, 2}, tC = {ec, 2, 2};
    float t = ((float (*)(void *, ...))__enzyme_fwddiff)((void *)mat_loss, enzyme_dup, &A, &tA, enzyme_dup, &B, &tB,
                                                         enzyme_dup, &C, &tC);
    CHECK_CLOSE(t, dad[i], 1e-5, "mat_loss forward vs reverse [%d]", i);
  }

  double extra[3] = {0.5, -1.5, 2.0}, dextra[3] = {0};
  Mixed m = {1.25, 0.75f, 7, extra}, dm = {0, 0, 0, dextra};
  __enzyme_autodiff((void *)mixed_loss, enzyme_dup, &m, &dm, enzyme_const, 3);
  /* s = x m + sin(m) + x sum(extra) */
  double sum = extra[0] + extra[1] + extra[2];
  CHECK_CLOSE(dm.x, 0.75 + sum, 1e-12, "mixed_loss d/dx");
  CHECK_CLOSE(dm.m, 1.25 + cos(0.75), 1e-6, "mixed_loss d/dm (float field)");
  for (int i = 0; i < 3; i++)
    CHECK_CLOSE(dextra[i], 1.25, 1e-12, "mixed_loss d/dextra[%d]", i);
  CHECK_TRUE(dm.tag == 0 && dm.extra == dextra, "mixed_loss leaves the shadow's int and pointer fields alone");
  return check_report();
}
