// Bytes read from a stream into memory that held an active value: the value read is a constant,
// so what the memory's shadow held before must end there. std::istream::read (which returns the
// stream, not a count), readsome and streambuf::sgetn overwrite a double computed from x; before
// they were listed, the old derivative survived the read (a silent wrong gradient, 7.68 for 6.7).
// Both modes against the analytic derivative.
// RUN: %synthase-cxx -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cxx -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
#include "check.h"
#include <cmath>
#include <cstring>
#include <sstream>
#include <string>

static std::string bytes_of(double c) {
  std::string s(sizeof c, '\0');
  std::memcpy(&s[0], &c, sizeof c);
  return s;
}

static double via_read(double x) {
  double d = x * x, e = 3 * d;
  std::istringstream in(bytes_of(2.5));
  in.read(reinterpret_cast<char *>(&d), sizeof d); // d = 2.5
  return d * x + e;                                  // 2.5 x + 3 x^2
}

static double via_readsome(double x) {
  double d[2] = {std::sin(x), x * x};
  std::istringstream in(bytes_of(-1.5));
  in.peek(); // readsome reads only what the buffer already holds
  in.readsome(reinterpret_cast<char *>(&d[1]), sizeof(double)); // d[1] = -1.5
  return d[0] * d[1];                                          // -1.5 sin x
}

static double via_sgetn(double x) {
  double d = std::exp(x);
  std::istringstream in(bytes_of(4.0));
  in.rdbuf()->sgetn(reinterpret_cast<char *>(&d), sizeof d); // d = 4
  return d * x * x;                                         // 4 x^2
}

int main() {
  for (double x : {0.7, -1.2}) {
    double r = __enzyme_autodiff((void *)via_read, x), t = __enzyme_fwddiff((void *)via_read, x, 1.0);
    CHECK_CLOSE(r, 2.5 + 6 * x, 1e-13, "istream::read, reverse");
    CHECK_CLOSE(t, 2.5 + 6 * x, 1e-13, "istream::read, forward");
    r = __enzyme_autodiff((void *)via_readsome, x), t = __enzyme_fwddiff((void *)via_readsome, x, 1.0);
    CHECK_CLOSE(r, -1.5 * std::cos(x), 1e-13, "istream::readsome, reverse");
    CHECK_CLOSE(t, -1.5 * std::cos(x), 1e-13, "istream::readsome, forward");
    r = __enzyme_autodiff((void *)via_sgetn, x), t = __enzyme_fwddiff((void *)via_sgetn, x, 1.0);
    CHECK_CLOSE(r, 8 * x, 1e-13, "streambuf::sgetn, reverse");
    CHECK_CLOSE(t, 8 * x, 1e-13, "streambuf::sgetn, forward");
  }
  return check_report();
}
