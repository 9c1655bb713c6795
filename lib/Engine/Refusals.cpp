#include "Engine/Refusals.h"
#include "Support/Diagnostics.h"
#include "Rules/CallJacobians.h"
#include "Rules/MPI.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/InstIterator.h"

using namespace llvm;

namespace synthase {

Value *atomicPointer(Instruction *I) {
  if (auto *LI = dyn_cast<LoadInst>(I))
    return LI->isAtomic() ? LI->getPointerOperand() : nullptr;
  if (auto *SI = dyn_cast<StoreInst>(I))
    return SI->isAtomic() ? SI->getPointerOperand() : nullptr;
  if (auto *RMW = dyn_cast<AtomicRMWInst>(I))
    return RMW->getPointerOperand();
  if (auto *CX = dyn_cast<AtomicCmpXchgInst>(I))
    return CX->getPointerOperand();
  return nullptr;
}

bool atomicOnPlainInteger(Instruction *I, function_ref<bool(const Value *)> HoldsFloatBits) {
  Value *Moved = nullptr;
  if (auto *SI = dyn_cast<StoreInst>(I))
    Moved = SI->getValueOperand();
  else if (auto *RMW = dyn_cast<AtomicRMWInst>(I))
    Moved = RMW->getValOperand();
  else if (auto *CX = dyn_cast<AtomicCmpXchgInst>(I))
    Moved = CX->getNewValOperand();
  else if (isa<LoadInst>(I))
    Moved = I;
  if (!Moved || !Moved->getType()->isIntOrIntVectorTy() || HoldsFloatBits(Moved) || HoldsFloatBits(I))
    return false;
  if (auto *RMW = dyn_cast<AtomicRMWInst>(I); RMW && RMW->isFloatingPointOperation())
    return false;
  return true;
}

/// Whether F starts threads itself: pthread_create, or Rust's std::thread spawn functions (whose
/// bookkeeping is what the generators meet first: thread-id counters, atomics, joins).
static bool startsThread(const Instruction &I) {
  auto *CB = dyn_cast<CallBase>(&I);
  const Function *G = CB ? CB->getCalledFunction() : nullptr;
  if (!G)
    return false;
  StringRef N = G->getName();
  return N == "pthread_create" || (N.contains("thread") && N.contains("spawn"));
}

static bool spawnsThreads(const Function *F) {
  return F && any_of(instructions(*F), [](const Instruction &I) { return startsThread(I); });
}

bool refuseThreads(const Function *Fn, const Instruction *I) {
  if (!I || !spawnsThreads(I->getFunction()))
    return false;
  reportError(Fn, I,
              "threads started inside a differentiated function (std::thread::scope / spawn, "
              "pthread_create) are not supported",
              "differentiate the work each thread does and start the threads outside the derivative "
              "(in C and C++, OpenMP parallel loops are supported inside derivatives)");
  return true;
}

void refuseVariadic(const Function *F) {
  reportError(F, nullptr,
              "cannot differentiate variadic function '" + displayName(F->getName()) +
                  "': it reads its variable arguments (va_arg)",
              "pass the values in an array or as fixed parameters");
}

bool refuseUnsupportedBody(const Function *Fn, const Function *Body) {
  for (const BasicBlock &BB : *Body)
    for (const Instruction &I : BB) {
      if (startsThread(I) && refuseThreads(Fn, &I))
        return true;
      // A computed goto jumps to block addresses of the primal function, which the generated
      // functions do not have (it crashed at run time).
      if (isa<IndirectBrInst>(I) || isa<CallBrInst>(I)) {
        reportError(Fn, &I,
                    isa<IndirectBrInst>(I) ? "computed goto (an indirect branch to a label address) is not supported"
                                           : "asm goto is not supported",
                    "dispatch with a switch statement instead");
        return true;
      }
    }
  return false;
}

void refuseAtomic(const Function *Fn, const Instruction *I) {
  if (refuseThreads(Fn, I))
    return;
  reportError(Fn, I, "atomic memory operations on differentiated data are not supported",
              "use plain loads and stores inside the differentiated function, or mark the memory "
              "enzyme_const");
}

void refuseUnknownCallee(const Function *Fn, const CallBase *CB) {
  if (refuseThreads(Fn, CB))
    return;
  std::string Msg, Hint;
  if (explainMissingCallRule(CB, Msg, Hint) || explainUnsupportedMPI(CB, Msg, Hint))
    reportError(Fn, CB, Msg, Hint);
  else if (const Function *G = CB->getCalledFunction())
    reportError(Fn, CB,
                "cannot differentiate call to external function '" + displayName(G->getName()) +
                    "': it has no body in this module and no known derivative",
                "compile its definition into the same module (or use -flto with the plugin at "
                "link time), or pass its inputs as enzyme_const");
  else if (CB->isInlineAsm())
    reportError(Fn, CB, "cannot differentiate inline assembly on active data",
                "use the C/C++ operation or compiler intrinsic instead of asm (for Eigen with FMA: "
                "define EIGEN_DONT_VECTORIZE, or compile without -mfma)");
  else
    reportError(Fn, CB, "cannot differentiate an indirect call on active data",
                "call the function directly so its body is known");
}

} // namespace synthase
