// Habits of code written for Enzyme that carry no derivative and must not stop one:
//  - a local char buffer or int counter handed to a function compiled elsewhere (what
//    `std::cerr << '\n'` and loggers become): the call moves no derivative;
//  - an allocator reached through a file-local function pointer that is never reassigned;
//  - entry points declared `void` whose produced adjoints/tangents are dropped.
// Each checked against the analytic derivative, forward and reverse mode.
// RUN: %synthase-cc -O0 -I%inputs %s %S/Inputs/byte_sink.c -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s %S/Inputs/byte_sink.c -o %t2 -lm && %t2
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -x c %S/Inputs/byte_sink.c -o %t3 -lm && %t3
#include "check.h"

#ifdef __cplusplus
extern "C" {
#endif
long byte_sink_write(void *stream, const char *buf, long n);
void byte_sink_count(int *counter);
unsigned long byte_sink_hash(void);
void __enzyme_autodiff_void(void *, ...);
void __enzyme_fwddiff_void(void *, ...);
#ifdef __cplusplus
}
#endif

static int calls;

/* sin(x) * y, logging a newline and a formatted digit between the two factors. */
static double logged(double x, double y) {
  char c = '\n';
  byte_sink_write(0, &c, 1);
  char digits[4] = {'0', '1', '2', '3'};
  digits[0] = (char)('0' + calls % 10);
  byte_sink_write(0, digits, 4);
  int local = 0;
  byte_sink_count(&local);
  byte_sink_count(&calls);
  return sin(x) * y + local;
}

static void *(*alloc_fn)(size_t) = malloc;
static void (*free_fn)(void *) = free;

/* x^2 * y through a buffer from the function-pointer allocator. */
static double via_pointer_alloc(double x, double y) {
  double *m = (double *)alloc_fn(2 * sizeof(double));
  m[0] = x * x;
  m[1] = m[0] * y;
  double r = m[1];
  free_fn(m);
  return r;
}

/* Writes out[0] *= x and returns x * out[0]: d/dx is dropped by the void entry point, the
   adjoint of out accumulates into dout. */
static double scale_in_place(double x, double *out) {
  out[0] *= x;
  return x * out[0];
}

int main(void) {
  double x = 0.7, y = -1.3;
  unsigned long h0 = byte_sink_hash();
  double dx = __enzyme_autodiff((void *)logged, x, enzyme_const, y);
  CHECK_CLOSE(dx, cos(x) * y, 1e-14, "reverse d/dx of a logged function");
  double tx = __enzyme_fwddiff((void *)logged, x, 1.0, enzyme_const, y);
  CHECK_CLOSE(tx, cos(x) * y, 1e-14, "forward d/dx of a logged function");
  CHECK_TRUE(calls == 2, "the logger's counter moved once per derivative call (%d)", calls);
  CHECK_TRUE(byte_sink_hash() != h0, "the bytes reached the sink");

  double gx = __enzyme_autodiff((void *)via_pointer_alloc, x, enzyme_const, y);
  CHECK_CLOSE(gx, 2 * x * y, 1e-14, "reverse through an allocator function pointer");
  double fx = __enzyme_fwddiff((void *)via_pointer_alloc, x, 1.0, enzyme_const, y);
  CHECK_CLOSE(fx, 2 * x * y, 1e-14, "forward through an allocator function pointer");

  double out = 2.0, dout = 1.0;
  __enzyme_autodiff_void((void *)scale_in_place, 3.0, &out, &dout);
  /* out1 = 2*3; r = 3*out1 = 3*3*out0: d r/d out0 = 9, plus the seed 1 on out1 times 3 = 3 */
  CHECK_CLOSE(dout, 12.0, 1e-15, "void reverse entry point: adjoint of out");
  double o2 = 2.0, do2 = 0.0;
  __enzyme_fwddiff_void((void *)scale_in_place, 3.0, 1.0, &o2, &do2);
  CHECK_CLOSE(do2, 2.0, 1e-15, "void forward entry point: tangent of out");
  return check_report();
}
