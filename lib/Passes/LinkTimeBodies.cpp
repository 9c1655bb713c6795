#include "Passes/LinkTimeBodies.h"
#include "Analysis/Activity.h"
#include "Analysis/UserAnnotations.h"
#include "Engine/Engine.h"
#include "Rules/Allocators.h"
#include "Rules/CallJacobians.h"
#include "Rules/CustomDerivatives.h"
#include "Rules/NodeLinks.h"
#include "Rules/Rules.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace synthase {

static bool mayCarry(Type *T) { return T->isPtrOrPtrVectorTy() || T->isFPOrFPVectorTy(); }

/// A bodiless callee the engine handles without its body.
static bool handledWithoutBody(const CallBase &CB, const Function &G) {
  StringRef N = G.getName();
  return G.isIntrinsic() || isAllocator(&G) || isInactiveCallee(&G) || hasCustomDerivative(&G) ||
         isNodeLinkHelper(&G) || G.hasFnAttribute(AttrFunctionLike) || findLocalRule(&CB) || hasJacobianRule(&CB) ||
         N.contains("__enzyme_") || N.starts_with("__synthase") || N.starts_with("__kmpc_") ||
         N.starts_with("omp_") || N.starts_with("MPI_") || N.starts_with("__cxa_");
}

bool needsBodiesFromOtherModules(const Function *F) {
  if (!F || F->isDeclaration())
    return F != nullptr;
  SmallVector<const Function *, 16> Work{F};
  SmallPtrSet<const Function *, 32> Seen{F};
  while (!Work.empty()) {
    const Function *G = Work.pop_back_val();
    auto Live = returningBlocks(*G); // panics and aborts are never differentiated
    for (const BasicBlock &BB : *G) {
      if (!Live.count(&BB))
        continue;
      for (const Instruction &I : BB) {
        auto *CB = dyn_cast<CallBase>(&I);
        const Function *C = CB ? CB->getCalledFunction() : nullptr;
        if (!C)
          continue; // indirect calls dispatch to the module's own candidates
        if (!C->isDeclaration()) {
          if (Seen.size() < 4096 && Seen.insert(C).second)
            Work.push_back(C);
          continue;
        }
        if (handledWithoutBody(*CB, *C))
          continue;
        if (mayCarry(CB->getType()) || any_of(CB->args(), [](const Use &U) { return mayCarry(U->getType()); }))
          return true;
      }
    }
  }
  return false;
}

} // namespace synthase
