/* lto-custom-derivative.test: the registration and the function it is for; the call site that
 * differentiates `outer` is in lto_custom_main.c. The registered gradient is a made-up 7 per
 * component (the body's is 1), so the output proves the registration reached the link. The
 * registration is `used`: clang does not emit an unreferenced static variable at all. */
__attribute__((noinline)) static double sum2(const double *x) { return x[0] + x[1]; }
static double sum2_aug(const double *x, const double *dx) { (void)dx; return x[0] + x[1]; }
static void sum2_rev(const double *x, double *dx, double dret) {
  (void)x;
  dx[0] += 7 * dret;
  dx[1] += 7 * dret;
}
static double sum2_fwd(const double *x, const double *dx) { (void)x; return 7 * (dx[0] + dx[1]); }
__attribute__((used)) static void *__enzyme_register_gradient_sum2[3] = {(void *)sum2, (void *)sum2_aug, (void *)sum2_rev};
__attribute__((used)) static void *__enzyme_register_derivative_sum2[2] = {(void *)sum2, (void *)sum2_fwd};
double outer(const double *x) { return sum2(x) * x[0]; }
