// A running minimum, maximum or any "keep the better one" chain in a counted loop,
//   P = phi [start, pre], [S, latch];  S = select(Cond, X, P)
// (k-means' `best = dist < best ? dist : best`, logsumexp's running maximum), whose reverse would
// pop one flag per iteration. P's adjoint only passes along the chain: it enters at the loop's
// exit and goes to X in the last iteration whose select took X, and to nothing before that (P had
// no adjoint left to give). So the reverse sweep needs one number per execution of the loop, the
// counter of that last iteration, not one flag per iteration. The forward sweep keeps it in a
// local and tapes it once at the loop's exit; the reverse of S routes the adjoint to X exactly in
// that iteration. In the iterations before it the adjoint is zero, so which way it goes changes
// nothing.
#include "Reverse/GradientGen.h"

namespace synthase {
namespace gradient {

/// P's users in its loop take no adjoint from it, apart from S: comparisons and other inactive
/// values that neither write memory nor call.
static bool onlyChainTakesAdjoint(PHINode *P, SelectInst *S, Loop *L, function_ref<bool(const Value *)> Active) {
  for (User *U : P->users()) {
    auto *UI = cast<Instruction>(U);
    if (UI == S || !L->contains(UI->getParent()))
      continue; // after the loop, users see the final value, whose adjoint enters at the exit
    if (isa<CmpInst>(UI) || (!Active(UI) && !UI->mayReadOrWriteMemory() && !isa<CallBase>(UI) && !isa<PHINode>(UI)))
      continue;
    return false;
  }
  return true;
}

GradientGen::RunningSelect *GradientGen::runningSelect(SelectInst *S) {
  if (auto It = RunningSelects.find(S); It != RunningSelects.end())
    return It->second.get();
  std::unique_ptr<RunningSelect> &R = RunningSelects[S];
  if (!SrcLI || !S->hasOneUse() || S->getCondition()->getType()->isVectorTy()) // one lane's pick only
    return nullptr;
  auto *P = dyn_cast<PHINode>(S->user_back());
  CountedLoop *C = P ? CountedByHeader.lookup(P->getParent()) : nullptr;
  if (!C || P->getNumIncomingValues() != 2 || P->getIncomingValueForBlock(C->Latch) != S ||
      SrcLI->getLoopFor(S->getParent()) != C->L || S->getTrueValue() == S->getFalseValue())
    return nullptr;
  bool PickTrue;
  if (S->getFalseValue() == P)
    PickTrue = true; // X is the true value: taken when Cond holds
  else if (S->getTrueValue() == P)
    PickTrue = false;
  else
    return nullptr;
  if (!onlyChainTakesAdjoint(P, S, C->L, [&](const Value *V) { return active(V); }))
    return nullptr;
  R = std::make_unique<RunningSelect>(RunningSelect{C, PickTrue});
  return R.get();
}

Value *GradientGen::lastPickAtExit(SelectInst *S, RunningSelect &R) {
  CountedLoop &C = *R.C;
  Type *T = C.IV->getType();
  auto *AugS = cast<Instruction>(augOf(S));
  BasicBlock &AugEntry = *AugS->getFunction()->begin();
  IRBuilder<> EB(&AugEntry, AugEntry.getFirstInsertionPt());
  AllocaInst *Last = EB.CreateAlloca(T, nullptr, S->getName() + ".lastpick");
  // Start - Step is no counter value of any iteration: every increment is free of wrapping,
  // so no iteration's counter is a whole number of steps away from it modulo 2^width.
  auto *AugPre = cast<BasicBlock>(VA[C.Pre]);
  IRBuilder<> PB(AugPre->getTerminator());
  PB.CreateStore(PB.CreateSub(augOf(C.Start), C.Step), Last);
  IRBuilder<> B(AugS->getNextNode());
  Value *Cond = augOf(S->getCondition()), *IV = augOf(C.IV), *Old = B.CreateLoad(T, Last);
  B.CreateStore(R.PickTrue ? B.CreateSelect(Cond, IV, Old) : B.CreateSelect(Cond, Old, IV), Last);
  auto *AugExit = cast<BasicBlock>(VA[C.Exit]);
  IRBuilder<> XB(AugExit, AugExit->getFirstInsertionPt());
  return XB.CreateLoad(T, Last, S->getName() + ".lastpick");
}

Value *GradientGen::selectCondition(SelectInst *S, BasicBlock *B) {
  RunningSelect *R = runningSelect(S);
  if (!R || !R->C->L->contains(B))
    return revPrimal(S->getCondition(), B);
  auto Key = std::make_pair(B, (const Value *)S);
  if (Value *Known = RunningPicks.lookup(Key))
    return Known;
  CountedLoop &C = *R->C;
  auto HKey = std::make_tuple((const BasicBlock *)C.Exit, (const Value *)S, 0u);
  Value *Last = fromLoopExit(C.Exit, Hoisted.count(HKey) ? nullptr : lastPickAtExit(S, *R), C.IV->getType(), B, false, S);
  Value *IV = revPrimal(C.IV, B);
  IRBuilder<> RBld(RB[B].Remat->getTerminator());
  Value *Here = RBld.CreateICmpEQ(IV, Last, S->getName() + ".picked");
  // The select's own condition: true when it took its true value.
  Value *Cond = R->PickTrue ? Here : RBld.CreateNot(Here);
  RunningPicks[Key] = Cond;
  return Cond;
}

} // namespace gradient
} // namespace synthase
