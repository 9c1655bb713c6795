#include "Analysis/IterationCounts.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace synthase {

static bool isIterationCount(const CallBase *CB) {
  const Function *F = CB->getCalledFunction();
  return F && F->getName() == "__enzyme_iter" && CB->arg_size() == 2 &&
         CB->getArgOperand(0)->getType()->isIntegerTy() &&
         CB->getArgOperand(1)->getType() == CB->getArgOperand(0)->getType() &&
         CB->getType() == CB->getArgOperand(0)->getType();
}

void raiseIterationCounts(Function &F) {
  for (Instruction &I : instructions(F))
    if (auto *CB = dyn_cast<CallBase>(&I); CB && isIterationCount(CB)) {
      IRBuilder<> B(CB);
      CB->setArgOperand(0, B.CreateAdd(CB->getArgOperand(0), CB->getArgOperand(1)));
    }
}

bool lowerIterationCounts(Module &M) {
  Function *F = M.getFunction("__enzyme_iter");
  if (!F)
    return false;
  bool Changed = false;
  for (User *U : make_early_inc_range(F->users()))
    if (auto *CB = dyn_cast<CallBase>(U); CB && isIterationCount(CB)) {
      CB->replaceAllUsesWith(CB->getArgOperand(0));
      CB->eraseFromParent();
      Changed = true;
    }
  if (F->use_empty())
    F->eraseFromParent();
  return Changed;
}

} // namespace synthase
