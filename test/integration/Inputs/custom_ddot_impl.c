/* The body of the BLAS-like ddot used by custom_ddot.c: compiled separately, so the
 * differentiated code only ever sees a declaration. */
#ifdef __cplusplus
extern "C"
#endif
double ddot(int n, const double *x, const double *y) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += x[i] * y[i];
  return s;
}
