#include "Engine/Refusals.h"
#include "Support/Diagnostics.h"
#include "Rules/CallJacobians.h"
#include "Rules/MPI.h"
#include "llvm/Analysis/ValueTracking.h"

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

void refuseAtomic(const Function *Fn, const Instruction *I) {
  reportError(Fn, I, "atomic memory operations on differentiated data are not supported",
              "use plain loads and stores inside the differentiated function, or mark the memory "
              "enzyme_const");
}

void refuseUnknownCallee(const Function *Fn, const CallBase *CB) {
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
