// libFuzzer target over Synthase's call-site lowering.
//
// Each input is read as a little program that builds one module: a few functions to
// differentiate (scalars, arrays, an output array, float, a struct return, a variadic function,
// a declaration without a body) and a caller holding up to three `__enzyme_*` calls whose
// operand lists are drawn from the bytes: marker loads in any order (enzyme_dup, enzyme_const,
// enzyme_out, enzyme_dupnoneed, enzyme_width, enzyme_dupv, enzyme_dupnoneedv, an unknown
// enzyme_foo), markers folded to the global's address or to ptrtoint (as -O2 leaves them),
// rustc-style metadata markers, doubles, floats, vectors, pointers, null, integers, widths,
// strides, a function pointer... The result type of each call is drawn too (double, void, a
// struct of two doubles, <2 x double>, float, i32).
//
// The module is built as text, parsed and verified (an input that does not give valid IR is
// rejected, returning -1), then synthase::lowerModule runs with a diagnostic handler that
// swallows errors. Afterwards:
//   * the module must pass llvm::verifyModule,
//   * when no error was reported, no `__enzyme_*` call may remain and no marker global may
//     still be used (the program would not link): a malformed call must give a diagnostic.
// Any violation prints the input module and aborts, so libFuzzer saves the reproducer.
#include "synthase/Synthase.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <cstdlib>
#include <string>

using namespace llvm;

namespace {

struct Reader {
  const uint8_t *D;
  size_t N, I = 0;
  bool empty() const { return I >= N; }
  unsigned next() { return I < N ? D[I++] : 0; }
};

// Functions to differentiate. t_extern has no body; t_vararg is variadic.
const char *Targets = R"(
define internal double @t_scalar(double %x, double %y) {
  %m = fmul double %x, %y
  %s = call double @llvm.sin.f64(double %m)
  %r = fadd double %s, %x
  ret double %r
}
define internal double @t_arr(ptr %p, i32 %n) {
entry:
  %c = icmp sgt i32 %n, 0
  br i1 %c, label %loop, label %exit
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s1, %loop ]
  %g = getelementptr inbounds double, ptr %p, i32 %i
  %v = load double, ptr %g
  %sq = fmul double %v, %v
  %s1 = fadd double %s, %sq
  %i1 = add nsw i32 %i, 1
  %d = icmp slt i32 %i1, %n
  br i1 %d, label %loop, label %exit
exit:
  %r = phi double [ 0.0, %entry ], [ %s1, %loop ]
  ret double %r
}
define internal void @t_out(double %x, ptr %p, ptr %q, i32 %n) {
entry:
  %c = icmp sgt i32 %n, 0
  br i1 %c, label %loop, label %exit
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %g = getelementptr inbounds double, ptr %p, i32 %i
  %v = load double, ptr %g
  %m = fmul double %v, %x
  %h = getelementptr inbounds double, ptr %q, i32 %i
  store double %m, ptr %h
  %i1 = add nsw i32 %i, 1
  %d = icmp slt i32 %i1, %n
  br i1 %d, label %loop, label %exit
exit:
  ret void
}
define internal float @t_float(float %x) {
  %m = fmul float %x, %x
  ret float %m
}
define internal { double, double } @t_pair(double %x, double %y) {
  %a = fmul double %x, %y
  %b = fadd double %x, %y
  %r0 = insertvalue { double, double } poison, double %a, 0
  %r1 = insertvalue { double, double } %r0, double %b, 1
  ret { double, double } %r1
}
define internal double @t_mixed(double %x, ptr %p, i32 %n, double %y) {
  %v = load double, ptr %p
  %m = fmul double %v, %x
  %k = sitofp i32 %n to double
  %a = fmul double %m, %k
  %r = fadd double %a, %y
  ret double %r
}
define internal double @t_vararg(double %x, ...) {
  ret double %x
}
declare double @t_extern(double)
declare double @llvm.sin.f64(double)

@enzyme_dup = external global i32
@enzyme_const = external global i32
@enzyme_out = external global i32
@enzyme_dupnoneed = external global i32
@enzyme_width = external global i32
@enzyme_dupv = external global i32
@enzyme_dupnoneedv = external global i32
@enzyme_foo = external global i32
)";

const char *TargetNames[] = {"@t_scalar", "@t_arr", "@t_out", "@t_float", "@t_pair",
                             "@t_mixed",  "@t_vararg", "@t_extern", "%p", "null"};
const char *Markers[] = {"enzyme_dup",  "enzyme_const", "enzyme_out",        "enzyme_dupnoneed",
                         "enzyme_width", "enzyme_dupv", "enzyme_dupnoneedv", "enzyme_foo"};
const char *RetTypes[] = {"double", "void", "{ double, double }", "<2 x double>", "float", "i32"};

struct Builder {
  std::string Body;
  std::string Loaded[8];
  bool RepeatedMarker = false;
  bool DupV = false;
  unsigned Tmp = 0;
  const char *marker(Reader &R) {
    unsigned K = R.next() % 8;
    if (K == 5 || K == 6)
      DupV = true;
    return Markers[K];
  }
  std::string fresh() { return "%v" + std::to_string(Tmp++); }

  // One call operand ("type value") from one byte; marker loads are emitted before the call.
  std::string operand(unsigned B, Reader &R) {
    switch (B % 30) {
    case 0: case 1: case 2: case 3: case 4: case 5: case 6: case 7: {
      // As in optimized IR, a marker loaded before is reused (CSE'd) half of the time.
      unsigned K = B % 30;
      if (!Loaded[K].empty() && (B & 0x80)) {
        RepeatedMarker = true;
        return "i32 " + Loaded[K];
      }
      if (K == 5 || K == 6)
        DupV = true;
      std::string V = fresh();
      Body += "  " + V + " = load i32, ptr @" + Markers[K] + "\n";
      Loaded[K] = V;
      return "i32 " + V;
    }
    case 8: return std::string("ptr @") + marker(R);
    case 9: return std::string("i64 ptrtoint (ptr @") + marker(R) + " to i64)";
    case 10: return "double %x";
    case 11: return "double %y";
    case 12: return "double 1.0";
    case 13: return "ptr %p";
    case 14: return "ptr %dp";
    case 15: return "ptr %q";
    case 16: return "ptr %dq";
    case 17: return "ptr null";
    case 18: return "i32 %n";
    case 19: return "i32 2";
    case 20: return "i64 16";
    case 21: return "i64 %st";
    case 22: return "float %fx";
    case 23: return "<2 x double> %vv";
    case 24: return std::string("metadata !\"") + marker(R) + "\"";
    case 25: return "metadata !\"enzyme_primal_return\"";
    case 26: return "i32 " + std::to_string(R.next() % 6); // a width, maybe 0 or 5
    case 27: return "ptr @t_scalar";
    case 28: return "i1 true";
    default: return "double poison";
    }
  }
};

// Shapes of known, reported engine bugs, skipped when SYNTHASE_FUZZ_SKIP_KNOWN is set (the lit
// test sets it so that `make test` checks for new problems while a known bug has its own XFAIL
// regression test). Make Known::any() return false for an entry once the bug is fixed.
//   reverse-pair: reverse mode of a function returning { double, double } gives a call with a
//                 ppc_fp128 seed (test/lit/regressions/reverse_struct_return.c).
//   bad-stride:   the operand after enzyme_dupv / enzyme_dupnoneedv is sign-extended without
//                 checking it is an integer (test/lit/regressions/dupv_bad_stride.c).
// All three reported bugs are fixed; the flags stay as examples of how to skip a known shape.
struct Known {
  bool ReversePair = false;
  bool RepeatedMarker = false;
  bool DupV = false;
  bool any() const { return false; /* e.g. ReversePair || DupV while such a bug is open */ }
};

std::string buildModule(Reader &R, bool &PostOpt, Known &K) {
  Builder B;
  unsigned Flags = R.next();
  PostOpt = Flags & 1;
  std::string Decls;
  std::string Sum = "0.0";
  unsigned NCalls = 1 + (Flags >> 1) % 3;
  for (unsigned C = 0; C < NCalls && !R.empty(); ++C) {
    unsigned H = R.next();
    bool Fwd = H & 1;
    std::string RT = RetTypes[(H >> 1) % 6];
    std::string Name = std::string(Fwd ? "__enzyme_fwddiff" : "__enzyme_autodiff");
    if (C > 0 || (H & 0x80))
      Name += "_c" + std::to_string(C);
    else
      RT = "double"; // the plain name keeps clang's usual declaration
    // The plain name can be declared once only: give it one type.
    Decls += "declare " + RT + " @" + Name + "(ptr, ...)\n";
    unsigned T = R.next() % 10;
    if (!Fwd && T == 4)
      K.ReversePair = true;
    std::string Args = std::string("ptr ") + TargetNames[T];
    unsigned NArgs = R.next() % 14;
    for (unsigned A = 0; A < NArgs; ++A)
      Args += ", " + B.operand(R.next(), R);
    std::string Res = RT == "void" ? "" : B.fresh();
    B.Body += "  " + (Res.empty() ? std::string() : Res + " = ") + "call " + RT + " (ptr, ...) @" +
              Name + "(" + Args + ")\n";
    if (RT == "double") {
      std::string S = B.fresh();
      B.Body += "  " + S + " = fadd double " + Sum + ", " + Res + "\n";
      Sum = S;
    } else if (!Res.empty()) {
      B.Body += "  store " + RT + " " + Res + ", ptr %q\n";
    }
  }
  K.RepeatedMarker = B.RepeatedMarker;
  K.DupV = B.DupV;
  return std::string(Targets) + Decls +
         "define double @caller(double %x, double %y, ptr %p, ptr %dp, ptr %q, ptr %dq, i32 %n, "
         "i64 %st, float %fx, <2 x double> %vv) {\n" +
         B.Body + "  ret double " + Sum + "\n}\n";
}

struct Swallow : DiagnosticHandler {
  unsigned *Errors;
  explicit Swallow(unsigned *E) : Errors(E) {}
  bool handleDiagnostics(const DiagnosticInfo &DI) override {
    if (DI.getSeverity() == DS_Error)
      ++*Errors;
    return true;
  }
};

[[noreturn]] void die(const std::string &Why, const std::string &Text) {
  errs() << "fuzz-lowering: " << Why << "\n--- input module ---\n" << Text << "\n";
  abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  Reader R{Data, Size};
  bool PostOpt = false;
  Known K;
  std::string Text = buildModule(R, PostOpt, K);
  static const bool SkipKnown = getenv("SYNTHASE_FUZZ_SKIP_KNOWN") != nullptr;
  if (SkipKnown && K.any())
    return -1;
  LLVMContext Ctx;
  unsigned Errors = 0;
  Ctx.setDiagnosticHandler(std::make_unique<Swallow>(&Errors));
  SMDiagnostic Err;
  std::unique_ptr<Module> M = parseAssemblyString(Text, Err, Ctx);
  if (!M || verifyModule(*M))
    return -1; // not a valid starting module: not interesting
  synthase::Options O;
  O.When = synthase::Stage::Standalone;
  O.PostOpt = PostOpt;
  synthase::lowerModule(*M, O);
  std::string VerifierOut;
  raw_string_ostream VOS(VerifierOut);
  if (verifyModule(*M, &VOS))
    die("the lowered module does not verify:\n" + VerifierOut, Text);
  if (Errors == 0) {
    for (Function &F : *M)
      if (F.getName().starts_with("__enzyme_") && !F.use_empty())
        die("a call to " + F.getName().str() + " is left without a diagnostic", Text);
    for (GlobalVariable &G : M->globals()) {
      G.removeDeadConstantUsers(); // a dead `ptrtoint (ptr @enzyme_x to i64)` is not a use
      if (G.getName().starts_with("enzyme_") && !G.use_empty())
        die("marker @" + G.getName().str() + " is still used without a diagnostic", Text);
    }
  }
  return 0;
}
