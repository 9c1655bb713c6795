// Reverse mode, adjoint sweep: adjoint slots and the adjoint code of each instruction.
#include "Reverse/GradientGen.h"
#include "Reverse/RelocationLog.h"
#include "Reverse/GradientLogger.h"
#include "Reverse/ShadowCache.h"
#include "Rules/OpenMP.h"

namespace synthase {
namespace gradient {

AllocaInst *GradientGen::slot(const Value *V) {
  auto It = Slots.find(V);
  if (It != Slots.end())
    return It->second;
  if (Instruction *T = RevEntry->getTerminator())
    EntryB->SetInsertPoint(T);
  Type *T = Act.adjointType(V);
  AllocaInst *A = EntryB->CreateAlloca(T, nullptr, V->getName() + ".adj");
  EntryB->CreateStore(Constant::getNullValue(T), A);
  Slots[V] = A;
  return A;
}

void GradientGen::accumulate(IRBuilder<> &Bd, const Value *V, Value *D) {
  if (!D || isa<Constant>(V) || !active(V))
    return;
  AllocaInst *S = slot(V);
  Bd.CreateStore(addDerivatives(Bd, Bd.CreateLoad(S->getAllocatedType(), S), D), S);
}

Value *GradientGen::takeAdjoint(IRBuilder<> &Bd, const Value *V) {
  AllocaInst *S = slot(V);
  Value *D = Bd.CreateLoad(S->getAllocatedType(), S, V->getName() + ".d");
  Bd.CreateStore(Constant::getNullValue(S->getAllocatedType()), S); // the next iteration starts afresh
  return D;
}

Value *GradientGen::pushAndPop(Value *AugValue, Type *T, BasicBlock *B) {
  if (BasicBlock *Last = sharedPopBlock(B); Last && Last != B) {
    Value *&Known = SharedPopsIn[{B, AugValue}];
    if (Known)
      return Known;
    AllocaInst *&Slot = SharedPopSlots[{Last, AugValue}];
    if (!Slot) {
      Value *Popped = popIn(AugValue, T, Last);
      SharedPopSources.insert({Last, AugValue});
      if (Instruction *Term = RevEntry->getTerminator())
        EntryB->SetInsertPoint(Term);
      Slot = EntryB->CreateAlloca(T, nullptr, AugValue->getName() + ".shared");
      IRBuilder<> SB(cast<Instruction>(Popped)->getNextNode());
      SB.CreateStore(Popped, Slot);
    }
    IRBuilder<> PB(RB[B].Pops, RB[B].Pops->begin());
    Known = PB.CreateLoad(T, Slot, AugValue->getName());
    return Known;
  }
  return popIn(AugValue, T, B);
}

Value *GradientGen::popIn(Value *AugValue, Type *T, BasicBlock *B) {
  // One push per (block, value), however many requests reach it: pushes and pops stay paired.
  Value *&Known = PoppedIn[{B, AugValue}];
  if (Known)
    return Known;
  Pushes[B].insert(AugValue);
  RevBlock &R = RB[B];
  IRBuilder<> PB(R.Pops, R.Pops->begin());
  Known = emitTapePop(E, PB, TapeCur, T);
  return Known;
}

// Which memory the function may write: loads from memory it never writes can be repeated in the
// reverse sweep instead of being taped (top level only, see Signature::TopLevel).

void GradientGen::reverseInstruction(Instruction *I, BasicBlock *B, IRBuilder<> &Bd) {
  if (isIgnorableIntrinsic(I))
    return;
  if (auto *AI = dyn_cast<AllocaInst>(I)) {
    FunctionCallee Free = E.module().getOrInsertFunction("free", Bd.getVoidTy(), Bd.getPtrTy());
    if (shadowed(AI)) // the shadow block made by the forward sweep ends with the variable
      emitCachedShadowFree(Bd, revShadow(AI, B));
    if (HeapLocals.count(AI)) // read by a registered reverse function until here
      Bd.CreateCall(Free, {revPrimal(AI, B)});
    return;
  }
  if (auto *SI = dyn_cast<StoreInst>(I)) {
    Value *V = SI->getValueOperand();
    Type *AT = Act.adjointType(V);
    bool Moved = Act.IntMoves.count(V) && active(V);
    if ((carriesDerivative(V->getType()) || Moved) && shadowed(SI->getPointerOperand())) {
      Value *SP = revShadow(SI->getPointerOperand(), B);
      // An element copied by hand out of a block the caller may own into a fresh one (`nb[i] =
      // old[i]` before `free(old)`, or float bits moved as an integer, as a small memcpy
      // becomes): the relocation log follows it as it follows a memcpy.
      if (auto *LI = dyn_cast<LoadInst>(V); LI && shadowed(LI->getPointerOperand()) &&
                                            relocates(SI->getPointerOperand(), LI->getPointerOperand(), false))
        emitMovedBytes(Bd, SP, revShadow(LI->getPointerOperand(), B), Bd.getInt64(DL.getTypeStoreSize(V->getType())),
                       /*FloatsOnly=*/true);
      Value *D = Bd.CreateAlignedLoad(AT, guardRev(Bd, SP, SI->getPointerOperand(), B, AT, false), SI->getAlign());
      if (!InPlaceUpdates.count(SI))
        Bd.CreateAlignedStore(Constant::getNullValue(AT), guardRev(Bd, SP, SI->getPointerOperand(), B, AT, true),
                              SI->getAlign());
      accumulate(Bd, V, D);
    } else if (V->getType()->isIntOrIntVectorTy() && shadowed(SI->getPointerOperand()) &&
               IntOverwrites.count(SI)) {
      // Float data overwritten by an integer: the adjoint of what it held before ends here.
      Value *SP = revShadow(SI->getPointerOperand(), B);
      Bd.CreateAlignedStore(Constant::getNullValue(V->getType()),
                            guardRev(Bd, SP, SI->getPointerOperand(), B, V->getType(), true), SI->getAlign());
    }
    return;
  }
  if (auto *CB = dyn_cast<CallBase>(I)) {
    if (!findLocalRule(I) && classify(I) != RuleClass::Inactive)
      return reverseCall(CB, B, Bd);
  }
  if (isSupportedAtomicUpdate(I))
    return reverseAtomicUpdate(I, B, Bd);
  if (!active(I))
    return;
  if (Lane == 0)
    LanePartials.clear();
  Value *D = takeAdjoint(Bd, I);
  if (width() == 1)
    emitGradientLog(Bd, I, D);
  auto primal = [&](Value *V) { return revPrimal(V, B); };
  if (const LocalRule *R = findLocalRule(I)) {
    for (unsigned Pos : differentiableOperands(R, I)) {
      Value *Op = ruleOperand(I, Pos);
      if (!active(Op))
        continue;
      // Partials are built in the body so their primal inputs come from pops/remat above. The
      // lanes of one instruction are emitted one after the other: they share lane 0's partial.
      Value *P = nullptr;
      if (Lane > 0)
        P = LanePartials.lookup({I, Pos});
      if (!P)
        P = localPartial(R, I, Pos, Bd, primal);
      if (width() > 1)
        LanePartials[{I, Pos}] = P;
      accumulate(Bd, Op, scalePartial(R, I, Pos, P, D, Bd));
    }
    return;
  }
  if (auto *LI = dyn_cast<LoadInst>(I)) {
    if (InPlaceUpdates.count(LI))
      return; // its store's reverse left the shadow as it is
    Type *AT = Act.adjointType(I);
    if (CountedLoop *C = Sig.Parallel ? nullptr : invariantLoad(LI, B)) {
      AllocaInst *Slot = deferredAdjoint(LI, *C, AT);
      Bd.CreateStore(addDerivatives(Bd, Bd.CreateLoad(AT, Slot), D), Slot);
      return;
    }
    Value *SP = revShadow(LI->getPointerOperand(), B);
    if (Sig.Parallel && atomicAccumulate(Bd, LI->getPointerOperand(), guardRev(Bd, SP, LI->getPointerOperand(), B, AT, true), D, LI->getAlign()))
      return;
    Value *Old = Bd.CreateAlignedLoad(AT, guardRev(Bd, SP, LI->getPointerOperand(), B, AT, false), LI->getAlign());
    Bd.CreateAlignedStore(addDerivatives(Bd, Old, D), guardRev(Bd, SP, LI->getPointerOperand(), B, AT, true),
                          LI->getAlign());
    return;
  }
  switch (I->getOpcode()) {
  case Instruction::FPTrunc:
  case Instruction::FPExt:
    return accumulate(Bd, I->getOperand(0), Bd.CreateFPCast(D, I->getOperand(0)->getType()));
  case Instruction::BitCast:
    return accumulate(Bd, I->getOperand(0), Bd.CreateBitCast(D, Act.adjointType(I->getOperand(0))));
  case Instruction::Freeze:
    return accumulate(Bd, I->getOperand(0), D);
  case Instruction::Select: {
    auto *S = cast<SelectInst>(I);
    Value *C = selectCondition(S, B);
    Value *Z = Constant::getNullValue(Act.adjointType(I));
    accumulate(Bd, S->getTrueValue(), Bd.CreateSelect(C, D, Z));
    accumulate(Bd, S->getFalseValue(), Bd.CreateSelect(C, Z, D));
    return;
  }
  case Instruction::ExtractElement: {
    Value *Vec = I->getOperand(0);
    accumulate(Bd, Vec, Bd.CreateInsertElement(Constant::getNullValue(Act.adjointType(Vec)), D, primal(I->getOperand(1))));
    return;
  }
  case Instruction::InsertElement: {
    Value *Idx = primal(I->getOperand(2));
    accumulate(Bd, I->getOperand(1), Bd.CreateExtractElement(D, Idx));
    accumulate(Bd, I->getOperand(0),
               Bd.CreateInsertElement(D, Constant::getNullValue(D->getType()->getScalarType()), Idx));
    return;
  }
  case Instruction::ShuffleVector: {
    auto *SV = cast<ShuffleVectorInst>(I);
    auto *InTy = cast<FixedVectorType>(Act.adjointType(SV->getOperand(0)));
    unsigned NIn = InTy->getNumElements();
    Value *DA = Constant::getNullValue(InTy), *DB = Constant::getNullValue(InTy);
    // Integer lanes carrying floats: the mask in the adjoint's float lanes (activity checked that
    // it exists, else the shuffle would not be a move).
    SmallVector<int, 16> Mask(SV->getShuffleMask());
    if (Act.IntMoves.count(SV))
      Mask = *intMoveShuffleMask(SV, InTy->getElementType());
    for (unsigned j = 0; j < Mask.size(); ++j) {
      int M = Mask[j];
      if (M < 0)
        continue;
      Value *Dj = Bd.CreateExtractElement(D, Bd.getInt32(j));
      Value *&Acc = (unsigned)M < NIn ? DA : DB;
      unsigned L = (unsigned)M % NIn;
      Acc = Bd.CreateInsertElement(Acc, Bd.CreateFAdd(Bd.CreateExtractElement(Acc, Bd.getInt32(L)), Dj), Bd.getInt32(L));
    }
    accumulate(Bd, SV->getOperand(0), DA);
    accumulate(Bd, SV->getOperand(1), DB);
    return;
  }
  case Instruction::ExtractValue: {
    auto *EV = cast<ExtractValueInst>(I);
    Value *Agg = EV->getAggregateOperand();
    accumulate(Bd, Agg, Bd.CreateInsertValue(Constant::getNullValue(Agg->getType()), D, EV->getIndices()));
    return;
  }
  case Instruction::InsertValue: {
    auto *IV = cast<InsertValueInst>(I);
    Value *In = IV->getInsertedValueOperand();
    if (carriesDerivative(In->getType()))
      accumulate(Bd, In, Bd.CreateExtractValue(D, IV->getIndices()));
    accumulate(Bd, IV->getAggregateOperand(), Bd.CreateInsertValue(D, Constant::getNullValue(In->getType()), IV->getIndices()));
    return;
  }
  default:
    break;
  }
  fail(I, "reverse mode has no derivative rule for this instruction",
       "if this value should carry no derivative, mark the inputs it depends on enzyme_const");
}


} // namespace gradient
} // namespace synthase
