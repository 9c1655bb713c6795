// Adjoint slots are allocas zeroed in the reverse sweep's entry block (ReverseSweep.cpp, `slot`).
// Promoting them to SSA (SROA / mem2reg in simplifyGenerated) computes, for each slot, the
// iterated dominance frontier of the blocks that store to it, and that walk covers the dominator
// subtree of every storing block. With the zero in the entry block, that is the whole function,
// once per slot: the cost grew with slots times blocks, so a 50,000-instruction function (as many
// slots, thousands of blocks) spent minutes in mem2reg (bench/compile, issue 17).
//
// The zero only has to reach the slot's first access, so it moves to a block that dominates every
// access and runs at most once before them:
// - All accesses in one block, the last one storing zero (the slot's value is taken, and reset,
//   once its instruction is reversed, after every use in that block): each run of the block
//   starts and ends with a zero slot, so the zero goes right before the first access, however
//   often the block runs. mem2reg then promotes the slot within that block alone.
// - Otherwise the nearest common dominator of the accesses, hoisted out of every loop that
//   contains it (so it runs once), when the control flow is reducible (loops are what LoopInfo
//   finds). Such a block still dominates the rest of the sweep, so mem2reg would walk all of it
//   again; these slots are promoted here with SSAUpdater, which walks back from each load only
//   as far as the nearest store.
#include "Reverse/SlotInits.h"
#include "llvm/Analysis/CFG.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Transforms/Utils/SSAUpdater.h"
#include "llvm/ADT/PostOrderIterator.h"
#include <memory>

using namespace llvm;

namespace synthase {

namespace {
struct Candidate {
  StoreInst *Init;
  SmallVector<Instruction *, 8> Accesses; // every load and store but the initial one
};
} // namespace

/// The alloca is only loaded and stored whole, and the entry block does nothing with it but
/// store the one zero.
static bool collect(AllocaInst *AI, Candidate &C) {
  BasicBlock *Entry = AI->getParent();
  Type *T = AI->getAllocatedType();
  C.Init = nullptr;
  for (User *U : AI->users()) {
    auto *I = dyn_cast<Instruction>(U);
    if (auto *LI = dyn_cast<LoadInst>(U)) {
      if (LI->isVolatile() || LI->getType() != T || LI->getParent() == Entry)
        return false;
    } else if (auto *SI = dyn_cast<StoreInst>(U)) {
      if (SI->isVolatile() || SI->getValueOperand() == AI || SI->getValueOperand()->getType() != T)
        return false;
      if (SI->getParent() == Entry) {
        auto *K = dyn_cast<Constant>(SI->getValueOperand());
        if (C.Init || !K || !K->isNullValue())
          return false;
        C.Init = SI;
        continue;
      }
    } else {
      return false;
    }
    C.Accesses.push_back(I);
  }
  return C.Init && !C.Accesses.empty();
}

/// All accesses in one block, and the last of them stores zero: the first access, else null.
/// Positions come from Order, numbered once per block before anything moves: a scan of the block
/// for each slot cost slots x instructions (minutes for a reverse sweep of 10^4 inlined calls).
static Instruction *singleBlockStart(const Candidate &C, DenseMap<BasicBlock *, DenseMap<Instruction *, unsigned>> &Order) {
  BasicBlock *B = C.Accesses.front()->getParent();
  for (Instruction *I : C.Accesses)
    if (I->getParent() != B)
      return nullptr;
  auto [It, New] = Order.try_emplace(B);
  if (New) {
    unsigned K = 0;
    for (Instruction &I : *B)
      It->second[&I] = K++;
  }
  Instruction *First = C.Accesses.front(), *Last = First;
  for (Instruction *I : C.Accesses) {
    unsigned P = It->second.lookup(I);
    if (P < It->second.lookup(First))
      First = I;
    if (P > It->second.lookup(Last))
      Last = I;
  }
  auto *SI = dyn_cast<StoreInst>(Last);
  auto *K = SI ? dyn_cast<Constant>(SI->getValueOperand()) : nullptr;
  return K && K->isNullValue() ? First : nullptr;
}

void placeSlotInits(Function &F) {
  if (F.isDeclaration())
    return;
  BasicBlock &Entry = F.getEntryBlock();
  SmallVector<Candidate, 64> Cands;
  for (Instruction &I : Entry)
    if (auto *AI = dyn_cast<AllocaInst>(&I)) {
      Candidate C;
      if (AI->isStaticAlloca() && collect(AI, C))
        Cands.push_back(std::move(C));
    }
  if (Cands.empty())
    return;
  std::unique_ptr<DominatorTree> DT;
  std::unique_ptr<LoopInfo> LI;
  bool Reducible = false;
  // Every position is read before any initialisation moves (moving only adds instructions, but
  // a numbering taken after a move would miss them).
  DenseMap<BasicBlock *, DenseMap<Instruction *, unsigned>> Order;
  SmallVector<std::pair<StoreInst *, Instruction *>, 64> Moves;
  SmallVector<Candidate *, 64> Rest;
  for (Candidate &C : Cands) {
    if (Instruction *First = singleBlockStart(C, Order))
      Moves.push_back({C.Init, First});
    else
      Rest.push_back(&C);
  }
  Order.clear();
  for (auto [Init, First] : Moves)
    Init->moveBefore(First->getIterator());
  for (Candidate *CP : Rest) {
    Candidate &C = *CP;
    if (!DT) {
      DT = std::make_unique<DominatorTree>(F);
      LI = std::make_unique<LoopInfo>(*DT);
      ReversePostOrderTraversal<Function *> RPOT(&F);
      Reducible = !containsIrreducibleCFG<const BasicBlock *>(RPOT, *LI);
    }
    if (!Reducible)
      continue;
    BasicBlock *At = C.Accesses.front()->getParent();
    for (Instruction *I : C.Accesses)
      At = DT->findNearestCommonDominator(At, I->getParent());
    while (Loop *L = LI->getLoopFor(At)) {
      DomTreeNode *Up = DT->getNode(L->getHeader())->getIDom();
      if (!Up)
        break;
      At = Up->getBlock();
    }
    if (At == &Entry || LI->getLoopFor(At))
      continue;
    C.Init->moveBefore(At->getFirstInsertionPt());
    // Promoted here: SSAUpdater walks back from each load only until it meets a store, where
    // mem2reg would walk the whole dominator subtree of At.
    SmallVector<Instruction *, 16> Insts(C.Accesses.begin(), C.Accesses.end());
    Insts.push_back(C.Init);
    AllocaInst *AI = cast<AllocaInst>(C.Init->getPointerOperand());
    SmallVector<PHINode *, 8> NewPHIs;
    SSAUpdater SSA(&NewPHIs);
    LoadAndStorePromoter(Insts, SSA, AI->getName()).run(Insts);
    AI->eraseFromParent();
  }
}

} // namespace synthase
