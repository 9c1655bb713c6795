#include "Analysis/ConditionalAllocations.h"
#include "Rules/Allocators.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace synthase {

/// The allocation call merged with null by P (its only non-null incoming value), or null.
static CallInst *allocationOrNull(PHINode *P) {
  CallInst *One = nullptr;
  for (Value *In : P->incoming_values()) {
    if (isa<ConstantPointerNull>(In))
      continue;
    auto *C = dyn_cast<CallInst>(In);
    if (!C || (One && One != C))
      return nullptr;
    std::optional<Allocator> A = allocatorFor(C->getCalledFunction());
    if (!A || A->Role != AllocRole::Alloc || A->Out >= 0 || A->Mapping)
      return nullptr;
    One = C;
  }
  return One;
}

/// V as a value available at At: itself when it dominates At, else a copy of the cheap pure
/// arithmetic that computes it (the byte count `n << 3`, computed on the allocating path).
static Value *availableAt(Value *V, Instruction *At, DominatorTree &DT, unsigned Depth,
                          SmallVectorImpl<Instruction *> &Made) {
  auto *I = dyn_cast<Instruction>(V);
  if (!I || DT.dominates(I, At))
    return V;
  if (Depth == 0 || !(I->isBinaryOp() || I->isCast() || isa<CmpInst>(I) || isa<SelectInst>(I)) ||
      !isSafeToSpeculativelyExecute(I))
    return nullptr;
  Instruction *Cl = I->clone();
  for (Use &U : Cl->operands()) {
    Value *Op = availableAt(U.get(), At, DT, Depth - 1, Made);
    if (!Op) {
      Cl->deleteValue();
      return nullptr;
    }
    U.set(Op);
  }
  Cl->insertBefore(At->getIterator());
  Made.push_back(Cl);
  return Cl;
}

bool hoistConditionalAllocations(Function &F) {
  if (F.isDeclaration())
    return false;
  DominatorTree DT(F);
  LoopInfo LI(DT);
  bool Changed = false;
  for (BasicBlock &BB : F)
    for (PHINode &P : make_early_inc_range(BB.phis())) {
      if (!P.getType()->isPointerTy())
        continue;
      CallInst *C = allocationOrNull(&P);
      if (!C || C->getParent() == &BB)
        continue;
      // Where every path into the phi has passed: the common dominator of the allocation and
      // the edges that bring null.
      BasicBlock *D = C->getParent();
      for (unsigned i = 0; i < P.getNumIncomingValues(); ++i)
        if (isa<ConstantPointerNull>(P.getIncomingValue(i)))
          D = DT.findNearestCommonDominator(D, P.getIncomingBlock(i));
      // A diamond inside one loop iteration, not a list built in a loop (`head = phi [null, m]`
      // at a loop header, where hoisting would make one block serve every iteration).
      if (!D || D == C->getParent() || LI.isLoopHeader(&BB) || LI.getLoopFor(D) != LI.getLoopFor(&BB) ||
          LI.getLoopFor(C->getParent()) != LI.getLoopFor(&BB))
        continue;
      Instruction *At = D->getTerminator();
      SmallVector<Instruction *, 4> Made;
      SmallVector<Value *, 2> Args;
      for (Use &U : C->args())
        Args.push_back(availableAt(U.get(), At, DT, 4, Made));
      if (is_contained(Args, nullptr)) {
        for (Instruction *I : reverse(Made))
          I->eraseFromParent();
        continue;
      }
      for (unsigned i = 0; i < Args.size(); ++i)
        C->setArgOperand(i, Args[i]);
      C->moveBefore(At->getIterator());
      P.replaceAllUsesWith(C);
      P.eraseFromParent();
      Changed = true;
    }
  return Changed;
}

} // namespace synthase
