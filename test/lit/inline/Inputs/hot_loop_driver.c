/* Driver for postopt_hot_loop.ll: the derivative sums computed by the differentiated module must
 * equal the analytic ones, whatever was inlined. */
#include "check.h"

double sum_df(const double *xs, long n, double a);
double sum_df_twice(const double *xs, long n, double a);
double sum_dfp(const double *xs, long n, double a);
double sum_tf(const double *xs, long n, double a);
double sum_tf_twice(const double *xs, long n, double a);
typedef struct { double primal, d; } Pair;
Pair dfp(double x, double a, double seed);
double df(double x, double a);
double tf(double x, double dx, double a);

static double f(double x, double a) {
  double s = 0;
  for (int k = 0; k < 8; ++k)
    s += sin(a * x + k) * exp(-k * x / 8);
  return s + x * x * x;
}

static double fprime(double x, double a) {
  double s = 0;
  for (int k = 0; k < 8; ++k)
    s += (a * cos(a * x + k) - k / 8.0 * sin(a * x + k)) * exp(-k * x / 8);
  return s + 3 * x * x;
}

int main(void) {
  enum { N = 64 };
  double xs[N], a = 0.7, d = 0, p = 0;
  for (int i = 0; i < N; ++i) {
    xs[i] = -1.5 + 3.0 * i / N;
    d += fprime(xs[i], a);
    p += f(xs[i], a);
  }
  CHECK_CLOSE(sum_df(xs, N, a), d, 1e-12, "sum_df");
  CHECK_CLOSE(sum_df_twice(xs, N, a), 2 * d, 1e-12, "sum_df_twice");
  CHECK_CLOSE(sum_dfp(xs, N, a), p + 0.5 * d, 1e-12, "sum_dfp");
  CHECK_CLOSE(sum_tf(xs, N, a), d, 1e-12, "sum_tf");
  CHECK_CLOSE(sum_tf_twice(xs, N, a), 2 * d, 1e-12, "sum_tf_twice");
  /* the placeholders stay callable on their own */
  CHECK_CLOSE(df(0.3, a), fprime(0.3, a), 1e-12, "df");
  CHECK_CLOSE(tf(0.3, 2.0, a), 2 * fprime(0.3, a), 1e-12, "tf");
  Pair q = dfp(0.3, a, 1.0);
  CHECK_CLOSE(q.primal, f(0.3, a), 1e-12, "dfp primal");
  CHECK_CLOSE(q.d, fprime(0.3, a), 1e-12, "dfp derivative");
  return check_report();
}
