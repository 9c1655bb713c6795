// Seeds, clocks and sleeps inside the differentiated function: std::random_device (was refused:
// its members are out of line in libstdc++), an mt19937 stream, std::chrono clocks, a sleep and
// the calendar time. None carries a derivative; the numbers around them are checked in both
// modes against the analytic derivative.
// RUN: %synthase-cxx -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cxx -O2 -I%inputs %s -o %t2 -lm && %t2
#include "check.h"
#include <chrono>
#include <cmath>
#include <ctime>
#include <random>
#include <thread>

static double noisy(double x) {
  std::random_device rd;
  std::mt19937 gen(rd());
  std::uniform_real_distribution<double> u(0.0, 1.0);
  auto t0 = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::microseconds(1));
  std::time_t now = std::time(nullptr);
  std::tm cal;
  localtime_r(&now, &cal);
  double s = 0;
  for (int i = 0; i < 8; i++)
    s += std::sin(x) * (u(gen) + 1.0 - u(gen) * 0.0 > 0.5 ? 1.0 : 1.0); // 8 sin x, whatever is drawn
  double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return s * x + (waited < 0 || cal.tm_year < 0 ? 1.0 : 0.0);
}

int main() {
  for (double x : {0.4, -1.1}) {
    double want = 8 * (std::cos(x) * x + std::sin(x));
    CHECK_CLOSE(__enzyme_autodiff((void *)noisy, x), want, 1e-13, "reverse at %g", x);
    CHECK_CLOSE(__enzyme_fwddiff((void *)noisy, x, 1.0), want, 1e-13, "forward at %g", x);
  }
  return check_report();
}
