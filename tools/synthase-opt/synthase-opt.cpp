// synthase-opt: read a module (.ll or .bc), differentiate every AD call site, optionally
// re-optimize, write it back (.ll with -S, bitcode otherwise).
#include "synthase/Synthase.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

static cl::OptionCategory Cat("synthase-opt options");
static cl::opt<std::string> Input(cl::Positional, cl::desc("<input .ll/.bc, - for stdin>"), cl::init("-"), cl::cat(Cat));
static cl::opt<std::string> Output("o", cl::desc("Output file (default: stdout)"), cl::value_desc("file"), cl::init("-"), cl::cat(Cat));
static cl::opt<bool> Text("S", cl::desc("Write textual IR instead of bitcode"), cl::cat(Cat));
static cl::opt<bool> NoPostOpt("no-postopt", cl::desc("Stop right after AD: do not re-optimize (to inspect attributes)"), cl::cat(Cat));
static cl::opt<unsigned> OptLevel("O", cl::desc("Post-AD optimization level 0-3 (default 2)"), cl::Prefix, cl::init(2), cl::cat(Cat));
static cl::opt<bool> PrintBefore("print-before-ad", cl::desc("Print the module before AD to stderr"), cl::cat(Cat));
static cl::opt<bool> PrintAfter("print-after-ad", cl::desc("Print the module after AD to stderr"), cl::cat(Cat));
static cl::opt<bool> PrintPasses("print-ad-passes", cl::desc("Print the AD passes as they run"), cl::cat(Cat));
static cl::opt<bool> NoVerify("disable-verify", cl::desc("Skip the LLVM verifier on the result"), cl::cat(Cat));

namespace {
struct ErrorCounter : DiagnosticHandler {
  bool *HadError;
  explicit ErrorCounter(bool *H) : HadError(H) {}
  bool handleDiagnostics(const DiagnosticInfo &DI) override {
    if (DI.getSeverity() == DS_Error)
      *HadError = true;
    DiagnosticPrinterRawOStream DP(errs());
    errs() << (DI.getSeverity() == DS_Error ? "error: " : DI.getSeverity() == DS_Warning ? "warning: " : "note: ");
    DI.print(DP);
    errs() << "\n";
    return true;
  }
};
} // namespace

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  cl::HideUnrelatedOptions(Cat);
  cl::ParseCommandLineOptions(argc, argv,
                              "synthase-opt: differentiate the __enzyme_autodiff / __enzyme_fwddiff "
                              "call sites of an LLVM module\n");
  LLVMContext Ctx;
  bool HadError = false;
  Ctx.setDiagnosticHandler(std::make_unique<ErrorCounter>(&HadError));
  SMDiagnostic Err;
  std::unique_ptr<Module> M = parseIRFile(Input, Err, Ctx);
  if (!M) {
    Err.print(argv[0], errs());
    return 1;
  }
  synthase::Options O;
  O.When = synthase::Stage::Standalone;
  O.PostOpt = !NoPostOpt;
  O.OptLevel = OptLevel;
  O.PrintBefore = PrintBefore;
  O.PrintAfter = PrintAfter;
  O.PrintPasses = PrintPasses;
  synthase::lowerModule(*M, O);
  if (!NoVerify && verifyModule(*M, &errs())) {
    errs() << "synthase-opt: the transformed module does not verify\n";
    return 2;
  }
  if (HadError)
    return 1;
  std::error_code EC;
  ToolOutputFile Out(Output, EC, Text ? sys::fs::OF_Text : sys::fs::OF_None);
  if (EC) {
    errs() << "synthase-opt: " << EC.message() << "\n";
    return 1;
  }
  if (Text)
    M->print(Out.os(), nullptr);
  else
    WriteBitcodeToFile(*M, Out.os());
  Out.keep();
  return 0;
}
