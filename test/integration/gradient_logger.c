// Enzyme's gradient logger: when the program defines enzymeLogGrad with Enzyme's parameter list,
// the reverse sweep calls it once per active instruction with that instruction's adjoint, its
// opcode, the callee of a call, the module, the function and the instruction's position. Here
// r = sin(x*y) + x/y: the logged adjoints are d r/d r = 1 (fadd), 1 (fdiv), 1 (the sin call) and
// cos(x*y) (fmul), and the gradient itself is unchanged. A program without the definition gets
// no calls (every other reverse-mode test).
// RUN: %synthase-cc -O0 -I%inputs %s -o %t0 -lm && %t0
// RUN: %synthase-cc -O2 -I%inputs %s -o %t2 -lm && %t2
// RUN: %synthase-cc -O3 -march=native -I%inputs %s -o %t3 -lm && %t3
// RUN: %synthase-cxx -x c++ -O2 -I%inputs %s -o %t4 -lm && %t4
#include "check.h"

static int logged = 0, seen_fmul = 0, seen_fdiv = 0, seen_fadd = 0, seen_sin = 0;
static double fmul_adjoint = 0;

void enzymeLogGrad(double grad, const char *opcode, const char *callee, const char *module,
                   const char *function, unsigned block, unsigned inst) {
  (void)module; (void)block; (void)inst;
  ++logged;
  CHECK_TRUE(strstr(function, "mixed") != NULL, "logged from the differentiated function (got %s)", function);
  if (!strcmp(opcode, "fmul")) { ++seen_fmul; fmul_adjoint = grad; }
  else if (!strcmp(opcode, "fdiv")) { ++seen_fdiv; CHECK_CLOSE(grad, 1.0, 1e-15, "fdiv adjoint"); }
  else if (!strcmp(opcode, "fadd")) { ++seen_fadd; CHECK_CLOSE(grad, 1.0, 1e-15, "fadd adjoint"); }
  else if (!strcmp(opcode, "call") && strstr(callee, "sin")) { ++seen_sin; CHECK_CLOSE(grad, 1.0, 1e-15, "sin adjoint"); }
}

static double mixed(double x, double y) { return sin(x * y) + x / y; }

typedef struct { double dx, dy; } grad2;
grad2 __enzyme_autodiff_g(void *, ...);

int main(void) {
  double x = 0.7, y = 1.9;
  grad2 g = __enzyme_autodiff_g((void *)mixed, x, y);
  CHECK_CLOSE(g.dx, y * cos(x * y) + 1 / y, 1e-14, "d/dx");
  CHECK_CLOSE(g.dy, x * cos(x * y) - x / (y * y), 1e-14, "d/dy");
  CHECK_TRUE(logged == 4, "4 active instructions logged (got %d)", logged);
  CHECK_TRUE(seen_fmul == 1 && seen_fdiv == 1 && seen_fadd == 1 && seen_sin == 1,
             "one fmul, fdiv, fadd and sin call (got %d %d %d %d)", seen_fmul, seen_fdiv, seen_fadd, seen_sin);
  CHECK_CLOSE(fmul_adjoint, cos(x * y), 1e-15, "fmul adjoint = cos(x*y)");
  /* forward mode never logs */
  logged = 0;
  double t = __enzyme_fwddiff((void *)mixed, x, 1.0, y, 0.0);
  CHECK_CLOSE(t, g.dx, 1e-14, "forward d/dx agrees with reverse");
  CHECK_TRUE(logged == 0, "forward mode logs nothing (got %d)", logged);
  return check_report();
}
