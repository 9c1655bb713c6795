#include "Support/Diagnostics.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/raw_ostream.h"
#include <atomic>

using namespace llvm;

namespace synthase {

static std::atomic<unsigned> NumErrors{0};

unsigned errorCount() { return NumErrors; }

std::string displayName(StringRef Symbol) {
  if (!Symbol.starts_with("_Z"))
    return Symbol.str();
  return llvm::demangle(Symbol.str());
}

std::string sourceLocation(const Instruction *I) {
  if (!I)
    return "";
  const DebugLoc &DL = I->getDebugLoc();
  if (!DL)
    return "";
  std::string S;
  raw_string_ostream OS(S);
  auto *Scope = cast<DIScope>(DL.getScope());
  OS << Scope->getFilename() << ":" << DL.getLine();
  if (DL.getCol())
    OS << ":" << DL.getCol();
  return S;
}

std::string printType(const Type *T) {
  std::string S;
  raw_string_ostream OS(S);
  T->print(OS); // a named struct prints with its body: "%struct.G3 = type { double, ... }"
  return S;
}

std::string printInstruction(const Value *V) {
  std::string S;
  raw_string_ostream OS(S);
  V->print(OS);
  StringRef R = StringRef(S).trim();
  // Drop trailing debug attachments: they are noise in a one-line message.
  size_t Cut = R.find(", !dbg");
  if (Cut != StringRef::npos)
    R = R.substr(0, Cut);
  return R.str();
}

static void emit(const Function *F, const Instruction *I, const Twine &Msg, const Twine &Hint,
                 DiagnosticSeverity Sev) {
  std::string Text;
  raw_string_ostream OS(Text);
  OS << "synthase: ";
  std::string Loc = sourceLocation(I);
  if (!Loc.empty())
    OS << Loc << ": ";
  if (F)
    OS << "in function '" << displayName(F->getName()) << "': ";
  OS << Msg;
  if (I)
    OS << "\n  instruction: " << printInstruction(I);
  std::string H = Hint.str();
  if (!H.empty())
    OS << "\n  hint: " << H;
  LLVMContext *Ctx = F ? &F->getContext() : (I ? &I->getContext() : nullptr);
  if (Sev == DS_Error)
    ++NumErrors;
  if (Ctx)
    Ctx->diagnose(DiagnosticInfoGeneric(Text, Sev));
  else
    errs() << Text << "\n";
}

void reportError(const Function *F, const Instruction *I, const Twine &Msg, const Twine &Hint) {
  emit(F, I, Msg, Hint, DS_Error);
}

void reportModuleError(Module &M, const Twine &Msg, const Twine &Hint) {
  ++NumErrors;
  std::string Text = ("synthase: " + Msg).str();
  std::string H = Hint.str();
  if (!H.empty())
    Text += "\n  detail: " + H;
  M.getContext().diagnose(DiagnosticInfoGeneric(Text, DS_Error));
}

void reportWarning(const Function *F, const Instruction *I, const Twine &Msg) {
  emit(F, I, Msg, "", DS_Warning);
}

} // namespace synthase
