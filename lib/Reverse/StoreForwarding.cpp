// Loads of scratch memory the reverse sweep rebuilds from what was stored there. GMM fills
// `xc[j] = x[i][j] - mu[c][j]` in one loop and reads `xc[j]` in the next ones; the buffer is
// filled again for the next point and component, so the loads cannot be repeated in the reverse
// sweep, and each one was taped. But the value a load reads is the stored value of the iteration
// of the filling loop that wrote its address, and when that value is rebuilt without the tape
// (reloadable inputs, cheap arithmetic), the reverse sweep recomputes it with the filling loop's
// counter replaced by the reading loop's.
//
// The rule holds when:
//  - the memory is a fresh allocation (alloca or allocator call) whose only writer in the
//    function is the store, reached only through GEPs and casts, never passed to a call other
//    than free, never stored: no other pointer can write it;
//  - the store runs once in every iteration of its counted loop (its block is in the loop, not a
//    subloop, and dominates the latch), at `base[counter]`; the load reads `base[counter']` in a
//    block of another counted loop other than the header, so counter' is an iteration's value;
//  - both loops run over the same counter values (same start, step, bound and exit test), are
//    siblings (same parent loop, or both outermost), and the filling loop's header dominates the
//    reading loop's: in every iteration of the parent, the filling loop has run to completion
//    before the reading loop starts, and not again since.
#include "Reverse/GradientGen.h"
#include "Rules/Allocators.h"

namespace synthase {
namespace gradient {

/// Idx is a counted loop's counter, or a zext/sext of it: the loop, and the cast (0 if none).
static std::pair<PHINode *, unsigned> counterIndex(Value *Idx) {
  if (auto *C = dyn_cast<CastInst>(Idx); C && (C->getOpcode() == Instruction::ZExt || C->getOpcode() == Instruction::SExt))
    return {dyn_cast<PHINode>(C->getOperand(0)), C->getOpcode()};
  return {dyn_cast<PHINode>(Idx), 0};
}

/// St is the only instruction that writes Obj, a fresh allocation, besides plain stores and
/// memsets outside the loop Outside (when there is one), and no pointer to Obj escapes the
/// function's view.
static bool onlyWriter(const Value *Obj, const StoreInst *St, const Loop *Outside) {
  SmallVector<const Value *, 8> Work{Obj};
  SmallPtrSet<const Value *, 16> Seen{Obj};
  while (!Work.empty()) {
    const Value *P = Work.pop_back_val();
    for (const User *U : P->users()) {
      if (isa<GetElementPtrInst>(U) || isa<BitCastInst>(U) || isa<AddrSpaceCastInst>(U) || isa<PHINode>(U) ||
          isa<SelectInst>(U)) {
        if (Seen.insert(U).second)
          Work.push_back(U);
        continue;
      }
      if (auto *L = dyn_cast<LoadInst>(U); L && L->getPointerOperand() == P)
        continue;
      if (auto *S = dyn_cast<StoreInst>(U); S == St && S->getValueOperand() != P)
        continue;
      if (auto *II = dyn_cast<IntrinsicInst>(U); II && II->isLifetimeStartOrEnd())
        continue;
      if (auto *CB = dyn_cast<CallBase>(U)) {
        std::optional<Allocator> A = allocatorFor(CB->getCalledFunction());
        if (A && A->Role == AllocRole::Free)
          continue;
      }
      // Writes that cannot run between the filling loop and the read: outside the loop both sit
      // in (a std::vector's zeroing at construction).
      if (auto *I = dyn_cast<Instruction>(U); I && Outside && !Outside->contains(I)) {
        auto *S = dyn_cast<StoreInst>(I);
        auto *MS = dyn_cast<MemSetInst>(I);
        if ((S && S->getPointerOperand() == P && S->getValueOperand() != P) || (MS && MS->getDest() == P))
          continue;
      }
      if (isa<ICmpInst>(U)) // a null test of the data pointer
        continue;
      return false;
    }
  }
  return true;
}

bool GradientGen::replayableIn(const Value *V, CountedLoop &From, BasicBlock *B, unsigned Depth) {
  auto *I = dyn_cast<Instruction>(V);
  if (!I || !From.L->contains(I->getParent()))
    return recomputableWithoutTape(V, B, 6); // the same value in every iteration of From
  if (I == From.IV)
    return true;
  if (Depth == 0 || isa<PHINode>(I))
    return false;
  if (auto *L = dyn_cast<LoadInst>(I)) {
    if (!isReloadable(L))
      return false;
  } else if (!isRematerializable(I) && !isCheapFloatOp(I)) {
    return false;
  }
  for (const Use &U : I->operands())
    if (!replayableIn(U.get(), From, B, Depth - 1))
      return false;
  return true;
}

Value *GradientGen::replayIn(Value *V, CountedLoop &From, Value *Counter, BasicBlock *B,
                             DenseMap<const Value *, Value *> &Built) {
  auto *I = dyn_cast<Instruction>(V);
  if (!I || !From.L->contains(I->getParent()))
    return revPrimal(V, B);
  if (I == From.IV)
    return Counter;
  if (Value *Known = Built.lookup(I))
    return Known;
  Instruction *Cl = I->clone();
  for (Use &U : Cl->operands())
    U.set(replayIn(U.get(), From, Counter, B, Built));
  Cl->insertBefore(RB[B].Remat->getTerminator()->getIterator());
  Cl->setName(I->getName());
  Cl->setDebugLoc(DebugLoc());
  Built[I] = Cl;
  return Cl;
}

Value *GradientGen::forwardedStore(LoadInst *L, BasicBlock *B) {
  if (!SrcLI || L->isVolatile() || L->isAtomic())
    return nullptr;
  auto *LG = dyn_cast<GetElementPtrInst>(L->getPointerOperand());
  if (!LG || LG->getNumIndices() != 1)
    return nullptr;
  const Value *Obj = objectBehind(LG->getPointerOperand());
  bool Fresh = isa<AllocaInst>(Obj) ||
               (isa<CallBase>(Obj) && isAllocator(cast<CallBase>(Obj)->getCalledFunction()));
  auto [ToIV, ToCast] = counterIndex(LG->getOperand(1));
  CountedLoop *To = ToIV ? CountedByIV.lookup(ToIV) : nullptr;
  if (!Fresh || !To || !To->Bound || !To->L->contains(B) || !To->L->contains(L->getParent()) ||
      L->getParent() == To->L->getHeader())
    return nullptr;
  for (User *U : LG->getPointerOperand()->users()) {
    auto *SG = dyn_cast<GetElementPtrInst>(U);
    if (!SG || SG == LG || SG->getNumIndices() != 1 || SG->getSourceElementType() != LG->getSourceElementType())
      continue;
    auto [FromIV, FromCast] = counterIndex(SG->getOperand(1));
    CountedLoop *From = FromIV ? CountedByIV.lookup(FromIV) : nullptr;
    if (!From || From == To || FromCast != ToCast || SG->getOperand(1)->getType() != LG->getOperand(1)->getType() ||
        From->Start != To->Start || From->Step != To->Step || From->Bound != To->Bound || From->Stay != To->Stay ||
        From->L->getParentLoop() != To->L->getParentLoop() || !From->L->isLoopInvariant(SG->getPointerOperand()) || !SrcDT->dominates(From->L->getHeader(), To->L->getHeader()))
      continue;
    for (User *SU : SG->users()) {
      auto *St = dyn_cast<StoreInst>(SU);
      if (!St || St->getPointerOperand() != SG || St->isVolatile() || St->isAtomic() ||
          St->getValueOperand()->getType() != L->getType() || SrcLI->getLoopFor(St->getParent()) != From->L ||
          !SrcDT->dominates(St->getParent(), From->Latch) || !onlyWriter(Obj, St, From->L->getParentLoop()) ||
          !replayableIn(St->getValueOperand(), *From, B, 8))
        continue;
      // Read in a counted loop inside the reading one (GMM's `xc[c]` in `out[r] += L[idx] *
      // xc[c]`), the value is the same in all of its iterations: rebuilt once, in the reverse of
      // that loop's exit, which runs before the loop's reverse iterations.
      CountedLoop *Sub = nullptr;
      for (Loop *Lp = SrcLI->getLoopFor(B); Lp && Lp != To->L; Lp = Lp->getParentLoop())
        if (Lp->getParentLoop() == To->L)
          Sub = CountedByHeader.lookup(Lp->getHeader());
      if (Sub && To->L->contains(Sub->Exit)) {
        AllocaInst *&Slot = ForwardedSlots[{Sub, L}];
        if (!Slot) {
          Value *Once = forwardedStore(L, Sub->Exit);
          if (!Once)
            return nullptr;
          if (Instruction *T = RevEntry->getTerminator())
            EntryB->SetInsertPoint(T);
          Slot = EntryB->CreateAlloca(L->getType(), nullptr, L->getName() + ".forwarded");
          IRBuilder<>(RB[Sub->Exit].Remat->getTerminator()).CreateStore(Once, Slot);
        }
        return IRBuilder<>(RB[B].Remat->getTerminator()).CreateLoad(L->getType(), Slot, L->getName());
      }
      DenseMap<const Value *, Value *> Built;
      return replayIn(St->getValueOperand(), *From, revPrimal(To->IV, B), B, Built);
    }
  }
  return nullptr;
}

} // namespace gradient
} // namespace synthase
