/* GradBench's "dir" by forward over reverse: one tangent sweep of the reverse-mode gradient along
 * v = (1, ..., 1) gives the gradient J (its primal) and H v, which is the Hessian's diagonal since
 * the Hessian is diagonal.  The primal is included, not linked: the plugin differentiates IR of
 * the same module. */
#include "../objectives/kmeans.c"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);

const char *tool_name = "synthase-rev";
static double *ones;

static void kmeans_grad(const double *points, const double *centroids, double *J, long n, long k,
                        long d) {
  for (long q = 0; q < k * d; ++q) J[q] = 0;
  __enzyme_autodiff((void *)kmeans_cost, enzyme_const, points, enzyme_dup, centroids, J,
                    enzyme_const, n, enzyme_const, k, enzyme_const, d);
}

void tool_prepare(Problem *p) {
  ones = alloc_doubles(p->k * p->d);
  for (long q = 0; q < p->k * p->d; ++q) ones[q] = 1;
}
void tool_deriv(Problem *p, double *D) {
  long len = p->k * p->d;
  double *J = p->work, *H = p->work + len;
  __enzyme_fwddiff((void *)kmeans_grad, enzyme_const, p->points, enzyme_dup, p->centroids, ones,
                   enzyme_dup, J, H, enzyme_const, p->n, enzyme_const, p->k, enzyme_const, p->d);
  for (long q = 0; q < len; ++q) D[q] = J[q] / H[q];
}
