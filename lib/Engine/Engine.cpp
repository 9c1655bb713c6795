#include "Engine/Engine.h"
#include "Rules/InactiveLibraryCalls.h"
#include "Rules/OpenMP.h"
#include "Rules/MPI.h"
#include "Reverse/RelocationLog.h"
#include "Analysis/UserAnnotations.h"
#include "Rules/CustomDerivatives.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Operator.h"
#include "llvm/IR/Verifier.h"
#include "Support/Diagnostics.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace synthase {

bool carriesDerivative(Type *T) {
  if (T->isFPOrFPVectorTy())
    return true;
  if (auto *ST = dyn_cast<StructType>(T))
    return any_of(ST->elements(), carriesDerivative);
  if (auto *AT = dyn_cast<ArrayType>(T))
    return carriesDerivative(AT->getElementType());
  return false;
}

Function *Engine::primalOf(Function *F, bool ShadowedTapes) {
  auto &Cache = ShadowedTapes ? ShadowedTapePrimals : Primals;
  auto It = Cache.find(F);
  if (It != Cache.end())
    return It->second;
  bool HadArenas = false;
  Function *C = makeDifferentiableClone(*F, S, ShadowedTapes, &HadArenas);
  Cache[F] = C;
  if (!HadArenas) // no tape arena code: the other kind of clone would be the same
    (ShadowedTapes ? Primals : ShadowedTapePrimals).try_emplace(F, C);
  return C;
}

Engine::Engine(Module &M) : M(M), ReleasesMemory(moduleReleasesMemory(M)) {}

void Engine::cleanup() {
  SmallPtrSet<Function *, 16> Clones;
  for (auto *Cache : {&Primals, &ShadowedTapePrimals})
    for (auto &KV : *Cache)
      Clones.insert(KV.second);
  for (Function *C : Clones)
    if (C->use_empty())
      C->eraseFromParent();
  Primals.clear();
  ShadowedTapePrimals.clear();
}

Constant *Engine::shadowConstant(Constant *C, unsigned Lane) {
  if (auto *G = dyn_cast<GlobalVariable>(C))
    return shadowGlobal(G, Lane);
  auto *CE = dyn_cast<ConstantExpr>(C);
  if (!CE || CE->getOpcode() != Instruction::GetElementPtr)
    return nullptr;
  Constant *Base = shadowConstant(CE->getOperand(0), Lane);
  if (!Base)
    return nullptr;
  auto *GO = cast<GEPOperator>(CE);
  SmallVector<Constant *, 4> Idx;
  for (unsigned i = 1; i < CE->getNumOperands(); ++i)
    Idx.push_back(CE->getOperand(i));
  return ConstantExpr::getGetElementPtr(GO->getSourceElementType(), Base, Idx, GO->getNoWrapFlags());
}

Value *Engine::guardNullShadow(IRBuilder<> &B, Value *Addr, Value *RootShadow, Type *AccessTy, bool Write) {
  const DataLayout &DL = M.getDataLayout();
  uint64_t Bytes = std::max<uint64_t>(256, AccessTy ? DL.getTypeAllocSize(AccessTy).getFixedValue() : 0);
  std::string Name = (Write ? "synthase.null_shadow.sink." : "synthase.null_shadow.zeros.") + std::to_string(Bytes);
  GlobalVariable *G = M.getGlobalVariable(Name, true);
  if (!G) {
    auto *AT = ArrayType::get(Type::getInt8Ty(M.getContext()), Bytes);
    G = new GlobalVariable(M, AT, !Write, GlobalValue::InternalLinkage, ConstantAggregateZero::get(AT), Name);
    G->setAlignment(Align(64));
  }
  Value *IsNull = shadowIsNull(B, Addr, RootShadow);
  if (auto *VT = dyn_cast<VectorType>(Addr->getType()))
    return B.CreateSelect(IsNull, B.CreateVectorSplat(VT->getElementCount(), G), Addr);
  return B.CreateSelect(IsNull, G, Addr, "shadow.guarded");
}

Value *Engine::shadowIsNull(IRBuilder<> &B, Value *Addr, Value *RootShadow) {
  if (RootShadow && RootShadow->getType()->isPointerTy())
    return B.CreateICmpEQ(RootShadow, ConstantPointerNull::get(cast<PointerType>(RootShadow->getType())));
  Type *IntT = B.getInt64Ty();
  if (auto *VT = dyn_cast<VectorType>(Addr->getType()))
    IntT = VectorType::get(IntT, VT->getElementCount());
  return B.CreateICmpULT(B.CreatePtrToInt(Addr, IntT), ConstantInt::get(IntT, 1 << 16));
}

void Engine::stopIfNullShadow(IRBuilder<> &B, Value *IsNull, const Function *Fn, const Instruction *I) {
  emitAbortIf(B, M, IsNull,
              runTimePlace(Fn, I) +
                  ": a value with a derivative is written through a pointer that was kept in memory "
                  "without its shadow (into enzyme_const or constant data), so its derivative would be "
                  "lost; pass that memory with enzyme_dup and a shadow buffer");
}

StructType *Engine::tapeType() {
  if (!TapeTy) {
    LLVMContext &C = M.getContext();
    TapeTy = StructType::get(C, {PointerType::getUnqual(C), Type::getInt64Ty(C), Type::getInt64Ty(C)});
  }
  return TapeTy;
}

bool Engine::verifyGenerated(Function *F, Function *Source) {
  std::string Msg;
  raw_string_ostream OS(Msg);
  if (!verifyFunction(*F, &OS))
    return true;
  reportError(Source, nullptr,
              "internal error: the generated derivative '" + F->getName() +
                  "' is not valid IR; please report this with the input module",
              StringRef(Msg).take_front(600));
  return false;
}

bool isKnownInactiveCallee(StringRef N) {
  return StringSwitch<bool>(N)
      .Cases({"printf", "fprintf", "puts", "putchar", "fputs", "fputc", "fflush", "fwrite"}, true)
      .Cases({"sprintf", "snprintf", "vprintf", "vfprintf", "perror", "__printf_chk"}, true)
      .Cases({"__fprintf_chk", "__sprintf_chk", "__snprintf_chk", "write"}, true)
      .Cases({"time", "clock", "clock_gettime", "gettimeofday", "rand", "srand", "random"}, true)
      .Cases({"exit", "abort", "__assert_fail", "__cxa_pure_virtual", "strlen", "strcmp"}, true)
      .Cases({"memcmp", "getenv", "atoi", "atof", "strtod", "strtol", "fopen", "fclose"}, true)
      // Characters only: tokenizers that write NULs into a char buffer, string copies.
      .Cases({"strtok", "strtok_r", "__strtok_r", "strsep", "strcpy", "strncpy", "strcat", "strncat"}, true)
      .Cases({"stpcpy", "strdup", "strndup", "__strdup", "strspn", "strcspn", "strncmp", "strcasecmp"}, true)
      // Random seeds and file handles (Rust's HashMap seeds its RandomState through these): they
      // write random bytes, descriptors and kernel state, never a value with a derivative.
      .Cases({"getrandom", "getentropy", "open", "open64", "openat", "openat64", "close"}, true)
      .Cases({"sched_yield", "getpid", "gettid", "sysconf", "isatty", "pthread_self"}, true)
      // Sleeping, calendar time and character input: no value with a derivative.
      .Cases({"nanosleep", "usleep", "sleep", "localtime", "localtime_r", "gmtime", "gmtime_r"}, true)
      .Cases({"strftime", "ctime", "asctime", "fgets", "fgetc", "getc", "ungetc", "feof", "ferror"}, true)
      .Cases({"rewind", "fseek", "ftell", "remove", "rename", "setvbuf", "setbuf", "fileno"}, true)
      // A block's size: the realloc rule of reverse mode asks it of the old shadow, so a gradient
      // that grows a block is itself differentiable (rev over rev).
      .Cases({"malloc_usable_size"}, true)
      // The index of a vector's largest magnitude: an integer, no derivative.
      .Cases({"cblas_idamax", "cblas_isamax", "cblas_idamin", "cblas_isamin"}, true)
      .Default(isInactiveLibraryCall(N) || isInactiveOpenMPCall(N) || isInactiveMPICall(N));
}

bool isInactiveCallee(const Function *G) {
  return G && (isInactiveFunction(G) || (G->isDeclaration() && isKnownInactiveCallee(G->getName())));
}

bool usesEnzymeApi(const Module &M) {
  return any_of(M, [](const Function &F) { return F.getName().contains("__enzyme_") && !F.use_empty(); });
}

void markInactiveLibraryDefinitions(Module &M) {
  if (!usesEnzymeApi(M))
    return; // nothing is differentiated here: the library's code stays as the optimizer has it
  for (Function &F : M) {
    if (F.isDeclaration() || hasCustomDerivative(&F) || !isKnownInactiveCallee(F.getName()))
      continue;
    if (libraryReadOf(F.getName())) {
      // A read into the caller's memory (streambuf::sgetn) must end the shadow of the bytes it
      // writes, which the generators do for the bodiless call: the copy the optimizer was given
      // goes (the library defines the function); any other stays differentiated.
      if (F.hasAvailableExternallyLinkage())
        F.deleteBody();
      continue;
    }
    F.addFnAttr(AttrInactive);
  }
  for (GlobalVariable &G : M.globals())
    if (!G.isConstant() && isInactiveLibraryGlobal(G.getName()))
      G.setMetadata(MDInactiveGlobal, MDNode::get(M.getContext(), {}));
}

} // namespace synthase
