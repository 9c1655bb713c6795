// Function-like: a user's function takes the derivative rule of a function of the rule table,
// through Enzyme's registration `void *__enzyme_function_like[2] = {(void *)f, (void *)"name"}`
// or the attribute `__attribute__((enzyme_function_like("name")))` (SynthaseClang.so).
// - my_log1p's body is log(1 + x) scaled by 1 + 1e-9: differentiating the body would be off by
//   1e-9 relative; the log1p rule gives 1/(1 + x) to rounding.
// - q_rsqrt is the fast inverse square root (integer bit trick plus one Newton step, ~2e-3
//   relative error); through the bits its body has no usable derivative, while the rsqrt rule
//   gives -0.5 x^-1.5 to float precision.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t1 -lm && %t1
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -x c++ -O0 -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
// RUN: %synthase-cc -DREGISTRATION -O0 -I%inputs %s -o %t5 -lm && %t5
// RUN: %synthase-cc -DREGISTRATION -O2 -I%inputs %s -o %t6 -lm && %t6
// RUN: %synthase-cxx -x c++ -DREGISTRATION -O2 -I%inputs %s -o %t7 -lm && %t7
#include "check.h"
#include <stdint.h>
#include <string.h>

#ifdef REGISTRATION
#define LIKE(name)
#else
#define LIKE(name) __attribute__((enzyme_function_like(name)))
#endif

LIKE("log1p") double my_log1p(double x) { return log(1 + x) * (1 + 1e-9); }

LIKE("rsqrt") float q_rsqrt(float x) {
  float y = x;
  uint32_t i;
  memcpy(&i, &y, sizeof i);
  i = 0x5f3759df - (i >> 1);
  memcpy(&y, &i, sizeof y);
  return y * (1.5f - 0.5f * x * y * y);
}

#ifdef REGISTRATION
void *__enzyme_function_like[2] = {(void *)my_log1p, (void *)"log1p"};
void *__enzyme_function_like_rsqrt[2] = {(void *)q_rsqrt, (void *)"rsqrt"};
#endif

double f(double x) { return my_log1p(x * x) + 2 * x; }
float g(float x) { return 3 * q_rsqrt(x); }
/* Both in one function, with the values reused after the call (reverse mode tapes them). */
double h(double x) { return my_log1p(x) * (double)q_rsqrt((float)x); }

int main(void) {
  for (double x = 0.25; x < 3; x += 0.5) {
    double want = 2 * x / (1 + x * x) + 2;
    double r = __enzyme_autodiff((void *)f, x), t = __enzyme_fwddiff((void *)f, x, 1.0);
    CHECK_CLOSE(r, want, 1e-15, "log1p rule, reverse x=%g", x);
    CHECK_CLOSE(t, want, 1e-15, "log1p rule, forward x=%g", x);
    float xf = (float)x;
    float gw = (float)(3 * -0.5 * pow(xf, -1.5));
    float gr = __enzyme_autodiff((void *)g, xf), gt = __enzyme_fwddiff((void *)g, xf, 1.0f);
    CHECK_CLOSE(gr, gw, 1e-6, "rsqrt rule, reverse x=%g", x);
    CHECK_CLOSE(gt, gw, 1e-6, "rsqrt rule, forward x=%g", x);
    double l = my_log1p(x), q = q_rsqrt((float)x);
    double hw = q / (1 + x) + l * (-0.5 * pow((float)x, -1.5));
    double hr = __enzyme_autodiff((void *)h, x), ht = __enzyme_fwddiff((void *)h, x, 1.0);
    CHECK_CLOSE(hr, hw, 1e-6, "product, reverse x=%g", x);
    CHECK_CLOSE(ht, hw, 1e-6, "product, forward x=%g", x);
    CHECK_CLOSE(hr, ht, 1e-6, "modes agree x=%g (float partials)", x);
    CHECK_CLOSE(gr, gt, 1e-7, "rsqrt modes agree x=%g", x);
    CHECK_CLOSE(r, t, 1e-15, "log1p modes agree x=%g", x);
  }
  return check_report();
}
