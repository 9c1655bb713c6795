// Numbers parsed with the scanf family inside the differentiated function, into variables that
// held active values: the parsed values are constants, so what the variables' shadows held
// must end (%lf double, %f float, %Lf long double; %d, %s, %*f, %[...] and %% consume or skip
// their arguments correctly). Was refused ("cannot differentiate call to external function
// '__isoc99_sscanf'"). A format that is not a constant, or one with a conversion the parser does
// not know (a positional `%1$lf`), stays refused. Both modes against the
// analytic derivative.
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: not %synthase-cc -O0 -DVARIABLE_FORMAT -I%inputs -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O0 -DPOSITIONAL -I%inputs -c %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: synthase: {{.*}}cannot differentiate call to external function '{{.*}}sscanf'
#include "check.h"
#include <math.h>
#include <stdio.h>

static const char *config = "scale=2.5 skip=9.0 n=3 off=0.25 tag=[ab] big=1.5 100%";

#ifdef VARIABLE_FORMAT
const char *format_of(int);
#endif

static double parsed(double x) {
  double scale = x * x; // active until parsed over
  float off = (float)sin(x);
  long double big = x;
  int n = 0;
  char tag[8];
#if defined(VARIABLE_FORMAT)
  sscanf(config, format_of(n), &scale);
#elif defined(POSITIONAL) // positional conversions: which argument gets a double is not read
  sscanf(config, "scale=%1$lf", &scale);
#else
  sscanf(config, "scale=%lf skip=%*f n=%d off=%f tag=[%7[^]]] big=%Lf 100%%", &scale, &n, &off, tag, &big);
#endif
  return scale * x * n + off * x + (double)big * x * x + x * x * x;
}

int main(void) {
  for (int k = 0; k < 2; k++) {
    double x = k ? -0.8 : 0.6;
    double want = 2.5 * 3 + 0.25 + 2 * 1.5 * x + 3 * x * x;
    CHECK_CLOSE(__enzyme_autodiff((void *)parsed, x), want, 1e-13, "reverse at %g", x);
    CHECK_CLOSE(__enzyme_fwddiff((void *)parsed, x, 1.0), want, 1e-13, "forward at %g", x);
  }
  return check_report();
}
