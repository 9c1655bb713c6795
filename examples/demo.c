// Synthase demo: gradients (reverse mode) and tangents (forward mode) of ordinary C code,
// printed next to central finite differences. Build: synthase-cc -O2 demo.c -o demo -lm
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

// A small loss: a damped oscillator's energy summed over a trajectory.
static double loss(const double *params, int n_steps) {
  double k = params[0], c = params[1], x = 1.0, v = 0.0, e = 0.0, dt = 0.01;
  for (int i = 0; i < n_steps; i++) {
    double a = -k * x - c * v;
    v += dt * a;
    x += dt * v;
    e += 0.5 * v * v + 0.5 * k * x * x + 0.1 * sin(x) * exp(-c);
  }
  return e;
}

int main(void) {
  double p[2] = {4.0, 0.3}, grad[2] = {0, 0};
  const int n = 500;
  __enzyme_autodiff((void *)loss, enzyme_dup, p, grad, enzyme_const, n);
  printf("loss(k=%.1f, c=%.1f) = %.6f\n", p[0], p[1], loss(p, n));
  printf("%-10s %-18s %-18s %-18s\n", "param", "reverse", "forward", "finite diff");
  int bad = 0;
  for (int i = 0; i < 2; i++) {
    double dp[2] = {0, 0}, dgrad[2] = {0, 0};
    dp[i] = 1.0;
    double tangent = __enzyme_fwddiff((void *)loss, enzyme_dup, p, dp, enzyme_const, n);
    double h = 1e-6, q[2] = {p[0], p[1]}, r[2] = {p[0], p[1]};
    q[i] += h;
    r[i] -= h;
    double fd = (loss(q, n) - loss(r, n)) / (2 * h);
    (void)dgrad;
    printf("%-10s %-18.10f %-18.10f %-18.10f\n", i == 0 ? "k" : "c", grad[i], tangent, fd);
    if (fabs(grad[i] - fd) > 1e-5 * (1 + fabs(fd)) || fabs(tangent - grad[i]) > 1e-10 * (1 + fabs(fd)))
      bad = 1;
  }
  printf(bad ? "MISMATCH\n" : "derivatives agree with finite differences\n");
  return bad;
}
