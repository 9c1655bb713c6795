// libstdc++ calls that carry no derivative: a local std::string (constructed, appended, compared,
// its size read), std::to_string, a std::ostringstream and a std::stringstream parsed with >> in a
// differentiated function, and active doubles formatted (to_string, <<, snprintf). A number parsed into a variable that held an active value has no
// derivative: the generators zero its shadow. At -O0
// their members are out-of-line calls without a body (extern templates); they are known inactive
// (lib/Rules/InactiveLibraryCalls.cpp), so only the floating-point path is differentiated.
// RUN: %synthase-cxx -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cxx -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
#include "check.h"
#include <cstring>
#include <sstream>
#include <string>

__attribute__((noinline)) static double pick(const std::string &k, double v) { return k.size() == 7 ? v : 0.0; }

static double keyed(double x) {
  std::string k("alpha_x");
  return pick(k, x * x);
}

static double labelled(double x, int n) {
  std::string name = "layer";
  name += std::to_string(n);
  std::ostringstream log;
  log << name << ':' << n;
  double s = sin(x) * (name.compare("layer3") == 0 ? 2.0 : 1.0);
  return s + (log.str().size() > 6 ? x * x * x : 0.0);
}

static double parsed(double x) {
  std::stringstream in("14 1.5 tail-chars");
  double a = x; /* active, then overwritten by a parsed number */
  float b;
  in >> a >> b;
  in.ignore();
  char ch;
  in.get(ch);
  char word[5];
  in.get(word, 3, '\t');
  return x * x * a * b + (ch == 't' ? a : 0.0);
}

/* Active values formatted: std::to_string(double) (a variadic vsnprintf helper), a stream of
   doubles, snprintf and stdout. Only the text depends on them; the derivative is y*y's. */
static double shown(double x) {
  double y = sin(x) * x;
  std::ostringstream os;
  os << y << ' ' << x;
  std::string s = std::to_string(y) + os.str();
  char buf[64];
  snprintf(buf, sizeof buf, "%g", y);
  if (s.size() + strlen(buf) > 10000)
    printf("%s %s\n", s.c_str(), buf);
  return y * y;
}

int main() {
  double x = 0.7;
  double g = __enzyme_autodiff((void *)keyed, x);
  CHECK_CLOSE(g, 2 * x, 1e-14, "rev keyed");
  double t = __enzyme_fwddiff((void *)keyed, x, 1.0);
  CHECK_CLOSE(t, 2 * x, 1e-14, "fwd keyed");
  double want = 2 * cos(x) + 3 * x * x; /* name == "layer3", log "layer3:3" longer than 6 */
  g = __enzyme_autodiff((void *)labelled, x, enzyme_const, 3);
  CHECK_CLOSE(g, want, 1e-13, "rev labelled");
  t = __enzyme_fwddiff((void *)labelled, x, 1.0, enzyme_const, 3);
  CHECK_CLOSE(t, want, 1e-13, "fwd labelled");
  CHECK_CLOSE(t, g, 1e-14, "fwd vs rev");
  g = __enzyme_autodiff((void *)parsed, x);
  CHECK_CLOSE(g, 2 * x * 14 * 1.5, 1e-13, "rev parsed");
  t = __enzyme_fwddiff((void *)parsed, x, 1.0);
  CHECK_CLOSE(t, 2 * x * 14 * 1.5, 1e-13, "fwd parsed");
  want = 2 * sin(x) * x * (cos(x) * x + sin(x));
  g = __enzyme_autodiff((void *)shown, x);
  CHECK_CLOSE(g, want, 1e-13, "rev shown");
  t = __enzyme_fwddiff((void *)shown, x, 1.0);
  CHECK_CLOSE(t, want, 1e-13, "fwd shown");
  return check_report();
}
