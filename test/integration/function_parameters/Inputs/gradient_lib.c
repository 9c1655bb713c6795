/* A helper compiled on its own: its module only ever passes `square_sum`. */
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
typedef double (*Objective)(const double *, int);
double square_sum(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return s;
}
void gradient(Objective f, const double *x, double *g, int n) {
  for (int i = 0; i < n; i++)
    g[i] = 0;
  __enzyme_autodiff((void *)f, enzyme_dup, x, g, enzyme_const, n);
}
void gradient_of_square_sum(const double *x, double *g, int n) { gradient(square_sum, x, g, n); }
