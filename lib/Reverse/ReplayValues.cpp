// Primal values in the reverse sweep: recomputed when pure and cheap, re-read when the memory is
// never overwritten, hoisted out of counted loops, otherwise popped from the tape.
#include "Reverse/GradientGen.h"
#include "Analysis/UserAnnotations.h"

namespace synthase {
namespace gradient {

void GradientGen::analyzeWrites() {
  auto noteWrite = [&](const Value *Ptr) {
    const Value *U = getUnderlyingObject(Ptr, 12);
    if (isa<AllocaInst>(U) || (isa<CallBase>(U) && isAllocator(cast<CallBase>(U)->getCalledFunction())))
      return; // fresh memory: cannot alias arguments or globals
    if (auto *A = dyn_cast<Argument>(U)) {
      WrittenArgs.insert(A);
      return;
    }
    UnknownWrites = true;
  };
  for (BasicBlock &BB : *Src)
    for (Instruction &I : BB) {
      if (!Live.count(&BB))
        break;
      if (auto *SI = dyn_cast<StoreInst>(&I))
        noteWrite(SI->getPointerOperand());
      else if (auto *MI = dyn_cast<MemIntrinsic>(&I))
        noteWrite(MI->getDest());
      else if (auto *CB = dyn_cast<CallBase>(&I)) {
        // A user's inactive function may still overwrite primal memory the reverse sweep reads.
        if (isIgnorableIntrinsic(&I) || findLocalRule(&I) || CB->onlyReadsMemory() || hasJacobianRule(CB) ||
            (classify(&I) == RuleClass::Inactive && !isInactiveFunction(CB->getCalledFunction())))
          continue;
        Function *G = CB->getCalledFunction();
        std::optional<Allocator> A = allocatorFor(G);
        if (A && A->Role == AllocRole::Alloc && A->Out < 0)
          continue;
        if (G && G->isDeclaration() && isKnownInactiveCallee(G->getName()))
          continue;
        if (CB->onlyAccessesArgMemory() || A) {
          for (Use &U : CB->args())
            if (U->getType()->isPointerTy())
              noteWrite(U.get());
          continue;
        }
        UnknownWrites = true;
      } else if (I.mayWriteToMemory()) {
        UnknownWrites = true;
      }
    }
}

bool GradientGen::isReloadable(const LoadInst *L) {
  if (!Sig.TopLevel || UnknownWrites || L->isVolatile() || L->isAtomic())
    return false;
  const Value *U = getUnderlyingObject(L->getPointerOperand(), 12);
  if (auto *G = dyn_cast<GlobalVariable>(U))
    return G->isConstant();
  auto *A = dyn_cast<Argument>(U);
  if (!A || WrittenArgs.count(A))
    return false;
  // Another written argument could point into the same memory unless this one is noalias.
  return WrittenArgs.empty() || A->hasNoAliasAttr();
}

void GradientGen::findCountedLoops() {
  SrcDT = std::make_unique<DominatorTree>(*Src);
  SrcLI = std::make_unique<LoopInfo>(*SrcDT);
  for (Loop *L : SrcLI->getLoopsInPreorder()) {
    BasicBlock *H = L->getHeader(), *Pre = L->getLoopPreheader(), *Lt = L->getLoopLatch();
    BasicBlock *Exit = L->getExitBlock();
    if (!Pre || !Lt || !Exit || Exit->getSinglePredecessor() != H || !Live.count(H) ||
        pred_size(H) != 2)
      continue;
    for (PHINode &P : H->phis()) {
      Value *Start = P.getIncomingValueForBlock(Pre);
      auto *Next = dyn_cast<BinaryOperator>(P.getIncomingValueForBlock(Lt));
      if (!P.getType()->isIntegerTy() || !Next || Next->getOpcode() != Instruction::Add || Next->getOperand(0) != &P)
        continue;
      auto *Step = dyn_cast<ConstantInt>(Next->getOperand(1));
      // Without wrapping the counter never returns to its start, so it identifies iteration 1.
      if (!Step || Step->isZero() || !(Next->hasNoSignedWrap() || Next->hasNoUnsignedWrap()))
        continue;
      Counted.push_back({L, &P, Start, Step, Pre, Lt, Exit});
      break;
    }
  }
  for (CountedLoop &C : Counted) {
    CountedByHeader[C.L->getHeader()] = &C;
    CountedByExit[C.Exit] = &C;
    CountedByIV[C.IV] = &C;
  }
}

Value *GradientGen::countedSlot(CountedLoop &C) {
  if (!C.Slot) {
    if (Instruction *T = RevEntry->getTerminator())
      EntryB->SetInsertPoint(T);
    C.Slot = EntryB->CreateAlloca(C.IV->getType(), nullptr, C.IV->getName() + ".counter");
  }
  return C.Slot;
}

GradientGen::CountedLoop *GradientGen::invariantIn(const Value *V, BasicBlock *B) {
  auto *I = dyn_cast<Instruction>(V);
  if (!I || !SrcLI)
    return nullptr;
  CountedLoop *Best = nullptr;
  for (Loop *L = SrcLI->getLoopFor(B); L; L = L->getParentLoop()) {
    if (L->contains(I->getParent()))
      break;
    if (CountedLoop *C = CountedByHeader.lookup(L->getHeader()))
      if (SrcDT->dominates(I, L->getHeader()))
        Best = C;
  }
  return Best;
}

Value *GradientGen::fromLoopExit(CountedLoop &C, Value *AugValue, Type *T, BasicBlock *B, bool Shadow,
                                 const Value *Key) {
  AllocaInst *&Slot = Hoisted[{&C, Key, Shadow ? 1 + Lane : 0}];
  if (!Slot) {
    if (Instruction *Term = RevEntry->getTerminator())
      EntryB->SetInsertPoint(Term);
    Slot = EntryB->CreateAlloca(T, nullptr, Key->getName() + ".invariant");
    Value *Popped = pushAndPop(AugValue, T, C.Exit);
    IRBuilder<> XB(RB[C.Exit].Remat->getTerminator());
    XB.CreateStore(Popped, Slot);
  }
  IRBuilder<> RBld(RB[B].Remat->getTerminator());
  return RBld.CreateLoad(T, Slot, Key->getName());
}

static bool isRematerializable(const Instruction *I) {
  if (I->getType()->isFPOrFPVectorTy())
    return false;
  return isa<GetElementPtrInst>(I) || isa<CastInst>(I) || isa<CmpInst>(I) ||
         (I->isBinaryOp() && !I->isIntDivRem()) || isa<SelectInst>(I) || isa<ExtractValueInst>(I) ||
         isa<FreezeInst>(I);
}

/// Float arithmetic that costs about as much to repeat as to pop (no division, no calls).
static bool isCheapFloatOp(const Instruction *I) {
  if (!I->getType()->isFPOrFPVectorTy())
    return false;
  switch (I->getOpcode()) {
  case Instruction::FAdd:
  case Instruction::FSub:
  case Instruction::FMul:
  case Instruction::FNeg:
  case Instruction::FPExt:
  case Instruction::FPTrunc:
  case Instruction::SIToFP:
  case Instruction::UIToFP:
    return true;
  default:
    return false;
  }
}

/// V can be rebuilt in the reverse of B from constants, arguments, the loop counters, memory that
/// is never written, and values B's reverse already has, without popping anything: then a float
/// computed from them (`c[l] - p[l]` in k-means' distance) is recomputed instead of taped, which
/// stores nothing where taping it stored one value per iteration.
bool GradientGen::recomputableWithoutTape(const Value *V, BasicBlock *B, unsigned Depth) {
  if (isa<Constant>(V) || isa<Argument>(V) || RevVal.count({B, V}))
    return true;
  auto *I = dyn_cast<Instruction>(V);
  if (!I || Depth == 0)
    return false;
  if (CountedLoop *C = CountedByIV.lookup(I); C && C->L->contains(B))
    return true;
  if (auto *L = dyn_cast<LoadInst>(I))
    return isReloadable(L) && recomputableWithoutTape(L->getPointerOperand(), B, Depth - 1);
  if (!isRematerializable(I) && !isCheapFloatOp(I))
    return false;
  for (const Use &U : I->operands())
    if (!recomputableWithoutTape(U.get(), B, Depth - 1))
      return false;
  return true;
}

Value *GradientGen::revPrimal(Value *V, BasicBlock *B) {
  if (isa<Constant>(V) || isa<MetadataAsValue>(V))
    return V;
  if (auto *A = dyn_cast<Argument>(V))
    return RevArg.lookup(A);
  auto Key = std::make_pair(B, (const Value *)V);
  if (Value *Known = RevVal.lookup(Key))
    return Known;
  auto *I = cast<Instruction>(V);
  Value *R;
  if (CountedLoop *C = CountedByIV.lookup(I); C && C->L->contains(B)) {
    IRBuilder<> RBld(RB[B].Remat->getTerminator());
    R = RBld.CreateLoad(I->getType(), countedSlot(*C), I->getName());
  } else if (isRematerializable(I) || (isa<LoadInst>(I) && isReloadable(cast<LoadInst>(I))) ||
             (isCheapFloatOp(I) && recomputableWithoutTape(I, B, 6))) {
    Instruction *Cl = I->clone();
    for (Use &U : Cl->operands())
      U.set(revPrimal(U.get(), B));
    Cl->insertBefore(RB[B].Remat->getTerminator()->getIterator());
    Cl->setName(I->getName());
    Cl->setDebugLoc(DebugLoc());
    R = Cl;
  } else if (CountedLoop *C = invariantIn(I, B)) {
    R = fromLoopExit(*C, augOf(I), I->getType(), B, false, I);
  } else {
    R = pushAndPop(augOf(I), I->getType(), B);
  }
  RevVal[Key] = R;
  return R;
}

Value *GradientGen::revShadow(Value *P, BasicBlock *B) {
  if (auto *C = dyn_cast<Constant>(P))
    return E.shadowConstant(C, Lane);
  if (auto *A = dyn_cast<Argument>(P))
    return RevArgSh.lookup(A);
  auto Key = std::make_pair(B, (const Value *)P);
  if (Value *Known = RevSh.lookup(Key))
    return Known;
  auto *I = cast<Instruction>(P);
  Value *R;
  IRBuilder<> RBld(RB[B].Remat->getTerminator());
  if (auto *G = dyn_cast<GetElementPtrInst>(I)) {
    Value *Base = revShadow(G->getPointerOperand(), B);
    SmallVector<Value *, 4> Idx;
    for (Value *X : G->indices())
      Idx.push_back(revPrimal(X, B));
    RBld.SetInsertPoint(RB[B].Remat->getTerminator());
    R = RBld.CreateGEP(G->getSourceElementType(), Base, Idx, I->getName() + ".shadow", G->getNoWrapFlags());
  } else if (isa<BitCastInst>(I) || isa<AddrSpaceCastInst>(I)) {
    Value *Base = revShadow(I->getOperand(0), B);
    RBld.SetInsertPoint(RB[B].Remat->getTerminator());
    R = RBld.CreatePointerCast(Base, I->getType());
  } else if (isa<FreezeInst>(I)) {
    R = revShadow(I->getOperand(0), B);
  } else if (!ShA.lookup(I)) {
    R = needShadow(I, I); // reported; the pair is dropped
  } else if (CountedLoop *C = invariantIn(I, B)) {
    R = fromLoopExit(*C, ShA.lookup(I), I->getType(), B, true, I);
  } else {
    R = pushAndPop(ShA.lookup(I), I->getType(), B);
  }
  RevSh[Key] = R;
  return R;
}

// Type deduction for copied memory: the floating-point type the function reads or writes through
// the same object (or the allocation's own type). Mixed float widths cannot be told apart, so
// they are refused instead of guessed; memory never accessed as floating point here is taken to
// hold doubles.

} // namespace gradient
} // namespace synthase
