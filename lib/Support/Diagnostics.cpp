#include "Support/Diagnostics.h"
#include "Support/RustNames.h"
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
  if (!Symbol.starts_with("_Z") && !Symbol.starts_with("_R"))
    return Symbol.str();
  return stripRustHash(llvm::demangle(Symbol.str()));
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
  // The synthase crate's entry names carry a link-error text; print the entry point's own name.
  std::string Out = R.str();
  for (size_t At = Out.find("@\"__enzyme_"); At != std::string::npos; At = Out.find("@\"__enzyme_", At + 1)) {
    size_t End = Out.find('"', At + 2);
    if (End == std::string::npos)
      break;
    StringRef Name = StringRef(Out).slice(At + 2, End);
    if (StringRef Short = shortEntryName(Name); Short.size() != Name.size())
      Out.replace(At, End + 1 - At, ("@" + Short).str());
  }
  return Out;
}

static void emit(const Function *F, const Instruction *I, const Twine &Msg, const Twine &Hint,
                 DiagnosticSeverity Sev) {
  std::string Text;
  raw_string_ostream OS(Text);
  OS << "synthase: ";
  // At a Rust call site the placeholder is generated code: point at the user's function.
  const Function *Primal = rustPrimalFor(I);
  std::string Loc = Primal ? rustPrimalLocation(I) : "";
  if (Loc.empty())
    Loc = sourceLocation(I);
  if (!Loc.empty())
    OS << Loc << ": ";
  if (F && Primal && F == I->getFunction())
    OS << "in function '" << displayName(F->getName()) << "', at the derivative of '" << displayName(Primal->getName()) << "': ";
  else if (F)
    OS << "in function '" << displayName(F->getName()) << "': ";
  OS << rustActivityText(Msg.str());
  if (I)
    OS << "\n  instruction: " << printInstruction(I);
  std::string H = rustActivityText(Hint.str());
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

/// stderr gets Len bytes at Str, then abort(); the block ends.
static void writeAndAbort(IRBuilder<> &B, Module &M, Value *Str, Value *Len) {
  FunctionCallee Write = M.getOrInsertFunction("write", B.getInt64Ty(), B.getInt32Ty(), B.getPtrTy(), B.getInt64Ty());
  B.CreateCall(Write, {B.getInt32(2), Str, Len});
  B.CreateCall(M.getOrInsertFunction("abort", B.getVoidTy()))->setDoesNotReturn();
  B.CreateUnreachable();
}

void emitAbort(llvm::IRBuilder<> &B, llvm::Module &M, const llvm::Twine &Msg) {
  std::string Text = ("synthase: " + Msg + "\n").str();
  writeAndAbort(B, M, B.CreateGlobalString(Text, "synthase.abort.msg"), B.getInt64(Text.size()));
}

void emitAbortIf(IRBuilder<> &B, Module &M, Value *Cond, const Twine &Msg) {
  if (auto *VT = dyn_cast<VectorType>(Cond->getType()); VT && VT->getElementCount().isFixed())
    Cond = B.CreateOrReduce(Cond);
  LLVMContext &C = M.getContext();
  Function *Stop = M.getFunction("synthase.abort_if");
  if (!Stop) {
    auto *FT = FunctionType::get(Type::getVoidTy(C), {Type::getInt1Ty(C), PointerType::getUnqual(C), Type::getInt64Ty(C)}, false);
    Stop = Function::Create(FT, GlobalValue::InternalLinkage, "synthase.abort_if", M);
    Stop->addFnAttr(Attribute::AlwaysInline);
    Stop->addFnAttr(Attribute::NoUnwind);
    auto *Entry = BasicBlock::Create(C, "entry", Stop);
    auto *Fail = BasicBlock::Create(C, "fail", Stop);
    auto *Done = BasicBlock::Create(C, "done", Stop);
    IRBuilder<> SB(Entry);
    SB.CreateCondBr(Stop->getArg(0), Fail, Done);
    SB.SetInsertPoint(Fail);
    writeAndAbort(SB, M, Stop->getArg(1), Stop->getArg(2));
    SB.SetInsertPoint(Done);
    SB.CreateRetVoid();
  }
  std::string Text = ("synthase: " + Msg + "\n").str();
  Value *Str = B.CreateGlobalString(Text, "synthase.abort.msg");
  B.CreateCall(Stop, {Cond, Str, B.getInt64(Text.size())});
}

std::string runTimePlace(const Function *F, const Instruction *I) {
  // With debug info the function is the one the source line is in (a callee inlined into F).
  // Without, the user's function a generated clone was made from ("f.synthase.primal").
  std::string Name = F ? displayName(F->getName().split(".synthase.").first) : "";
  if (I && I->getDebugLoc())
    if (auto *LS = dyn_cast<DILocalScope>(I->getDebugLoc().getScope()))
      if (DISubprogram *SP = LS->getSubprogram())
        Name = SP->getName().str();
  std::string S = Name.empty() ? std::string("in a derivative") : "in function '" + Name + "'";
  if (std::string Loc = sourceLocation(I); !Loc.empty())
    S += " (" + Loc + ")";
  return S;
}

} // namespace synthase
