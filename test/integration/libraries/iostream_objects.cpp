// Stream objects made inside the differentiated function: an ostringstream written with
// std::endl, an ofstream, a filebuf made with new, wrapped in an ostream and deleted through its
// virtual destructor. From -O1 on std::endl and the stream members have bodies in the module
// (their virtual calls into libstdc++ were refused), and at every level the filebuf's virtual
// delete aborted at run time. They carry no derivative; the numbers around them are checked in
// both modes against the analytic derivative, and forward against reverse.
// The entry points are declared the way Enzyme's own C++ tests do, without extern "C"
// (mangled names), which also reached std::list's node links unrecognised.
// RUN: %synthase-cxx -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cxx -O1 -I%inputs %s -o %t1 -lm && %t1
// RUN: %synthase-cxx -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cxx -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -O2 -flto -I%inputs %s -o %tl -lm && %tl
#include <cmath>
#include <cstdio>
#include <fstream>
#include <list>
#include <memory>
#include <sstream>
#include <string>

double __enzyme_autodiff_mangled(void *, double);
double __enzyme_fwddiff_mangled(void *, double, double);
double __enzyme_autodiff_list(void *, const double *, double *);

static int failures = 0;
static void check(double got, double want, double tol, const char *what) {
  double err = std::fabs(got - want) / std::fmax(1.0, std::fabs(got) + std::fabs(want));
  if (!(err <= tol)) {
    std::printf("FAIL %s: got %.17g want %.17g\n", what, got, want);
    failures++;
  }
}

static std::size_t printed = 0;

double streams(double x) {
  std::ostringstream log;
  log << "x = " << x << std::endl;
  double y = std::sin(x) * x;
  log << "y = " << y << std::endl;
  printed += log.str().size();

  std::ofstream out("/dev/null");
  out << log.str() << y << '\n';
  out.close();

  char buffer[256];
  std::filebuf *fb = new std::filebuf();
  fb->pubsetbuf(buffer, sizeof buffer);
  if (fb->open("/dev/null", std::ios::out)) {
    std::ostream os(fb);
    os << "again " << y * y << std::endl;
  }
  fb->close();
  delete fb; // a virtual call on an object only libstdc++ wrote

  std::ostringstream *more = new std::ostringstream;
  *more << y << std::endl;
  std::unique_ptr<std::ostream> sink(new std::ofstream("/dev/null"));
  *sink << more->str();
  std::ostream *base = more;
  delete base; // through the base class's virtual destructor
  return y * std::exp(0.5 * x);
}

static double streams_deriv(double x) {
  double y = std::sin(x) * x, dy = std::cos(x) * x + std::sin(x);
  return dy * std::exp(0.5 * x) + 0.5 * y * std::exp(0.5 * x);
}

double linked(const double *x) {
  std::list<double> l;
  for (int i = 0; i < 4; i++)
    l.push_front(x[i] * x[i]);
  double s = 0;
  for (double v : l)
    s = 0.5 * s + v;
  return s;
}

int main() {
  for (double x : {0.3, 1.7, -2.2}) {
    double r = __enzyme_autodiff_mangled((void *)streams, x);
    double t = __enzyme_fwddiff_mangled((void *)streams, x, 1.0);
    check(r, streams_deriv(x), 1e-13, "reverse through streams");
    check(t, r, 1e-14, "forward vs reverse through streams");
  }
  if (printed == 0)
    failures++;
  double x[4] = {0.5, -1.5, 2.0, 0.25}, g[4] = {0};
  __enzyme_autodiff_list((void *)linked, x, g);
  // pushed to the front, so x[3] is read first and halved most: weights 1, 1/2, 1/4, 1/8
  const double w[4] = {1.0, 0.5, 0.25, 0.125};
  for (int i = 0; i < 4; i++)
    check(g[i], 2 * x[i] * w[i], 1e-14, "std::list through a mangled entry point");
  std::printf("%s\n", failures ? "FAILED" : "ok");
  return failures != 0;
}
