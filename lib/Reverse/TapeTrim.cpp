// Taping fewer values once the reverse sweep is complete. While the reverse of a block is built,
// each primal value it needs is recomputed if that takes no pop, else popped: whether the
// operands of a float product will be popped anyway is not known yet when the product is asked
// for (det's `sign * A[r][c]` comes before `sign`). Afterwards every block's pops are known, and
// a cheap float value whose operands the block pops too (or rebuilds without the tape: constants,
// arguments, loop counters, re-readable memory) is rebuilt from them at the start of the block's
// recomputed values, and its push and pop go.
#include "Reverse/GradientGen.h"
#include "llvm/Transforms/Utils/Local.h"

namespace synthase {
namespace gradient {

bool GradientGen::rebuildableFromPops(const Value *V, BasicBlock *B, unsigned Depth,
                                      const DenseSet<Value *> &Dropped) {
  if (isa<Constant>(V))
    return true;
  if (isa<Argument>(V))
    return RevArg.lookup(V) != nullptr;
  auto *I = dyn_cast<Instruction>(V);
  if (!I)
    return false;
  Value *Aug = augOf(const_cast<Instruction *>(I));
  if (auto It = PoppedIn.find({B, Aug}); It != PoppedIn.end() && !Dropped.count(It->second))
    return true;
  if (Depth == 0)
    return false;
  if (CountedLoop *C = CountedByIV.lookup(I); C && C->L->contains(B))
    return true;
  if (auto *L = dyn_cast<LoadInst>(I))
    return isReloadable(L) && rebuildableFromPops(L->getPointerOperand(), B, Depth - 1, Dropped);
  if (isa<PHINode>(I) || (!isRematerializable(I) && !isCheapFloatOp(I)))
    return false;
  for (const Use &U : I->operands())
    if (!rebuildableFromPops(U.get(), B, Depth - 1, Dropped))
      return false;
  return true;
}

Value *GradientGen::rebuildFromPops(Value *V, BasicBlock *B, IRBuilder<> &At,
                                    DenseMap<const Value *, Value *> &Built, const DenseSet<Value *> &Dropped) {
  if (isa<Constant>(V) || isa<MetadataAsValue>(V))
    return V;
  if (isa<Argument>(V))
    return RevArg.lookup(V);
  if (Value *Known = Built.lookup(V))
    return Known;
  auto *I = cast<Instruction>(V);
  Value *R;
  if (auto It = PoppedIn.find({B, augOf(I)}); It != PoppedIn.end() && !Dropped.count(It->second)) {
    R = It->second;
  } else if (CountedLoop *C = CountedByIV.lookup(I); C && C->L->contains(B)) {
    R = At.CreateLoad(I->getType(), countedSlot(*C), I->getName());
  } else {
    Instruction *Cl = I->clone();
    for (Use &U : Cl->operands())
      U.set(rebuildFromPops(U.get(), B, At, Built, Dropped));
    At.Insert(Cl, I->getName());
    Cl->setDebugLoc(DebugLoc());
    R = Cl;
  }
  Built[V] = R;
  return R;
}

void GradientGen::trimPops() {
  DenseMap<const Value *, Instruction *> SrcOf; // augmented value -> source instruction
  for (BasicBlock &BB : *Src)
    for (Instruction &I : BB)
      if (Value *A = VA.lookup(&I))
        SrcOf[A] = &I;
  // In the order of the pushes, so that the same input always gives the same derivative.
  SmallVector<std::tuple<BasicBlock *, Value *, Instruction *>, 16> Candidates;
  for (auto &[B, Vals] : Pushes)
    for (Value *Aug : Vals)
      if (Instruction *I = SrcOf.lookup(Aug); I && isCheapFloatOp(I) && !isa<PHINode>(I) && PoppedIn.count({B, Aug}) &&
                                              !SharedPopSources.count({B, Aug}))
        Candidates.push_back({B, Aug, I});
  DenseSet<Value *> Dropped;
  for (auto &[B, Aug, I] : Candidates) {
    Value *Pop = PoppedIn.lookup({B, Aug});
    if (!Pop || Dropped.count(Pop))
      continue;
    Dropped.insert(Pop); // not an operand of itself
    bool Ok = true;
    for (const Use &U : I->operands())
      Ok &= rebuildableFromPops(U.get(), B, 6, Dropped);
    if (!Ok)
      Dropped.erase(Pop);
  }
  if (Dropped.empty())
    return;
  DenseMap<BasicBlock *, DenseMap<const Value *, Value *>> Built;
  DenseMap<BasicBlock *, Instruction *> Start; // B's first recomputed value before this pass
  for (auto &[B, Aug, I] : Candidates)
    Start.try_emplace(B, &*RB[B].Remat->getFirstInsertionPt());
  for (auto &[B, Aug, I] : Candidates) {
    auto *Pop = cast<LoadInst>(PoppedIn.lookup({B, Aug}));
    if (!Dropped.count(Pop))
      continue;
    // Rebuilt at the start of the recomputed values, after every pop of B and before any use, in
    // the order built (a value rebuilt for an earlier one may be an operand).
    IRBuilder<> At(Start[B]);
    Value *Cl = rebuildFromPops(I, B, At, Built[B], Dropped);
    // The pop's code: `top -= size; store top; load base + top`. Without the store, the pops
    // around it read the same slots as before.
    auto *Addr = cast<Instruction>(Pop->getPointerOperand());
    Value *Top = cast<GetElementPtrInst>(Addr)->getOperand(1);
    Pop->replaceAllUsesWith(Cl);
    Pop->eraseFromParent();
    for (User *U : make_early_inc_range(Top->users()))
      if (isa<StoreInst>(U))
        cast<Instruction>(U)->eraseFromParent();
    RecursivelyDeleteTriviallyDeadInstructions(Addr); // and the top it was computed from
    Pushes[B].remove(Aug);
    PoppedIn.erase({B, Aug});
  }
}

} // namespace gradient
} // namespace synthase
