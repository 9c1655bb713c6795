// Primal values in the reverse sweep: recomputed when pure and cheap, re-read when the memory is
// never overwritten, hoisted out of counted loops, otherwise popped from the tape.
#include "Reverse/GradientGen.h"
#include "Analysis/UserAnnotations.h"
#include "llvm/Analysis/CFG.h"
#include "llvm/IR/InstIterator.h"

namespace synthase {
namespace gradient {

/// F, and what it calls, writes only memory it allocates itself. The plugin runs before LLVM
/// infers `memory(read)` for functions such as det's recursive minor, so it looks for itself.
static bool writesOnlyItsOwnMemory(const Function &F, SmallPtrSetImpl<const Function *> &Seen) {
  if (!Seen.insert(&F).second)
    return true; // a cycle adds no write of its own
  auto Fresh = [](const Value *Ptr) {
    const Value *U = getUnderlyingObject(Ptr, 12);
    return isa<AllocaInst>(U) || (isa<CallBase>(U) && isAllocator(cast<CallBase>(U)->getCalledFunction()));
  };
  for (const Instruction &I : instructions(F)) {
    if (!I.mayWriteToMemory() || isIgnorableIntrinsic(&I))
      continue;
    if (auto *SI = dyn_cast<StoreInst>(&I)) {
      if (!Fresh(SI->getPointerOperand()) || SI->isVolatile())
        return false;
      continue;
    }
    if (auto *MI = dyn_cast<MemIntrinsic>(&I)) {
      if (!Fresh(MI->getDest()) || MI->isVolatile())
        return false;
      continue;
    }
    auto *CB = dyn_cast<CallBase>(&I);
    if (!CB)
      return false;
    const Function *G = CB->getCalledFunction();
    if (findLocalRule(&I) || CB->onlyReadsMemory() || hasJacobianRule(CB))
      continue;
    if (std::optional<Allocator> A = allocatorFor(G); A && A->Role == AllocRole::Alloc && A->Out < 0)
      continue;
    if (!G || G->isDeclaration() || !writesOnlyItsOwnMemory(*G, Seen))
      return false;
  }
  return true;
}

void GradientGen::analyzeWrites() {
  auto noteWrite = [&](const Value *Ptr) {
    // Through phis and selects: a std::vector's data pointer is `phi [new(n), null]`.
    SmallVector<const Value *, 4> Objs;
    getUnderlyingObjects(Ptr, Objs, nullptr, 12);
    for (const Value *U : Objs) {
      if (isa<AllocaInst>(U) || isa<ConstantPointerNull>(U) ||
          (isa<CallBase>(U) && isAllocator(cast<CallBase>(U)->getCalledFunction())))
        continue; // fresh memory: cannot alias arguments or globals
      if (auto *A = dyn_cast<Argument>(U))
        WrittenArgs.insert(A);
      else
        UnknownWrites = true;
    }
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
        if (SmallPtrSet<const Function *, 8> Seen; G && !G->isDeclaration() && writesOnlyItsOwnMemory(*G, Seen))
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
  if (UnknownWrites || L->isVolatile() || L->isAtomic())
    return false;
  const Value *U = getUnderlyingObject(L->getPointerOperand(), 12);
  if (auto *G = dyn_cast<GlobalVariable>(U))
    return Sig.TopLevel && G->isConstant();
  auto *A = dyn_cast<Argument>(U);
  return A && unchangedUntilReverse(A);
}

bool GradientGen::unchangedUntilReverse(const Argument *A) {
  unsigned K = A->getArgNo();
  if (UnknownWrites || WrittenArgs.count(A) || !(Sig.TopLevel || (K < 64 && (Sig.UnchangedArgs >> K & 1))))
    return false;
  // Another written argument could point into the same memory unless this one is noalias.
  return WrittenArgs.empty() || A->hasNoAliasAttr();
}

/// For a loop left from its latch: whether the latch's exit test is `Next < Bound` (step +1) or
/// `Next > Bound` (step -1), strict, against a loop-invariant bound, with a constant Start that is
/// not the largest (smallest) value of its signedness: then `Next` never wraps.
static bool latchTestBoundsStep(const Loop *L, BasicBlock *Lt, const Value *Next, const ConstantInt *Step,
                                const Value *Start) {
  auto *Br = dyn_cast<BranchInst>(Lt->getTerminator());
  auto *Cmp = Br && Br->isConditional() ? dyn_cast<ICmpInst>(Br->getCondition()) : nullptr;
  auto *S = dyn_cast<ConstantInt>(Start);
  if (!Cmp || !S || L->contains(Br->getSuccessor(0)) == L->contains(Br->getSuccessor(1)))
    return false;
  CmpInst::Predicate Pr = Cmp->getPredicate();
  const Value *Bound = Cmp->getOperand(1);
  if (Cmp->getOperand(1) == Next) {
    Bound = Cmp->getOperand(0);
    Pr = CmpInst::getSwappedPredicate(Pr);
  } else if (Cmp->getOperand(0) != Next) {
    return false;
  }
  if (!L->isLoopInvariant(Bound))
    return false;
  CmpInst::Predicate Stay = L->contains(Br->getSuccessor(0)) ? Pr : CmpInst::getInversePredicate(Pr);
  const APInt &V = S->getValue();
  if (Step->isOne())
    return (Stay == CmpInst::ICMP_ULT && !V.isMaxValue()) || (Stay == CmpInst::ICMP_SLT && !V.isMaxSignedValue());
  if (Step->isMinusOne())
    return (Stay == CmpInst::ICMP_UGT && !V.isMinValue()) || (Stay == CmpInst::ICMP_SGT && !V.isMinSignedValue());
  return false;
}

BasicBlock *GradientGen::liveExitOf(Loop *L) const {
  SmallVector<BasicBlock *, 4> Exits;
  L->getUniqueExitBlocks(Exits);
  BasicBlock *LiveExit = nullptr;
  for (BasicBlock *X : Exits)
    if (Live.count(X)) {
      if (LiveExit)
        return nullptr;
      LiveExit = X;
    }
  return LiveExit;
}

void GradientGen::findCountedLoops() {
  SrcDT = std::make_unique<DominatorTree>(*Src);
  SrcLI = std::make_unique<LoopInfo>(*SrcDT);
  for (Loop *L : SrcLI->getLoopsInPreorder()) {
    BasicBlock *H = L->getHeader(), *Pre = L->getLoopPreheader(), *Lt = L->getLoopLatch();
    // Its one exit that can return: Rust's loops also leave to panics, which never reach the reverse.
    BasicBlock *Exit = liveExitOf(L);
    // The loop is left from its header (`while (i < n)`) or, rotated as an optimized module
    // arrives at link time, from its latch (`do ... while (++i < n)`). Either way the reverse
    // starts from the counter's value at the exit and steps it down to the start, entering the
    // preheader's reverse there; only where the final value comes from differs (see Bound).
    if (!Pre || !Lt || !Exit || !Live.count(H) || pred_size(H) != 2 ||
        (Exit->getSinglePredecessor() != H && Exit->getSinglePredecessor() != Lt))
      continue;
    for (PHINode &P : H->phis()) {
      Value *Start = P.getIncomingValueForBlock(Pre);
      auto *Next = dyn_cast<BinaryOperator>(P.getIncomingValueForBlock(Lt));
      if (!P.getType()->isIntegerTy() || !Next || Next->getOpcode() != Instruction::Add || Next->getOperand(0) != &P)
        continue;
      auto *Step = dyn_cast<ConstantInt>(Next->getOperand(1));
      if (!Step || Step->isZero())
        continue;
      CountedLoop C{L, &P, Start, Step, Pre, Lt, Exit};
      auto *Br = dyn_cast<BranchInst>(H->getTerminator());
      auto *Cmp = Br && Br->isConditional() ? dyn_cast<ICmpInst>(Br->getCondition()) : nullptr;
      Value *HeaderBound = nullptr;
      CmpInst::Predicate HeaderStay = CmpInst::BAD_ICMP_PREDICATE;
      if (Cmp && L->contains(Br->getSuccessor(0)) != L->contains(Br->getSuccessor(1))) {
        CmpInst::Predicate Pr = Cmp->getPredicate();
        Value *Bound = Cmp->getOperand(1);
        if (Cmp->getOperand(1) == &P) {
          Bound = Cmp->getOperand(0);
          Pr = CmpInst::getSwappedPredicate(Pr);
        }
        if ((Cmp->getOperand(0) == &P || Cmp->getOperand(1) == &P) && L->isLoopInvariant(Bound)) {
          HeaderBound = Bound;
          HeaderStay = L->contains(Br->getSuccessor(0)) ? Pr : CmpInst::getInversePredicate(Pr);
        }
      }
      // The header's test tells the counter's final value only when it leads to the live exit:
      // Rust's `i == len` bounds check also sits in the header, but leads to a panic, and the
      // loop returns through its latch one iteration earlier.
      if (HeaderBound && Exit->getSinglePredecessor() == H) {
        C.Bound = HeaderBound;
        C.Stay = HeaderStay;
      }
      // Without wrapping the counter never returns to its start, so it identifies iteration 1.
      // A step of one past a strict test the header made (`i < n`, `i > n`) cannot wrap either:
      // C's unsigned `size_t i` increments carry no flag before IndVarSimplify adds one; that
      // holds whichever exit the test leads to, since every iteration that goes on passed it.
      bool StrictlyBounded = HeaderBound && ((Step->isOne() && (HeaderStay == CmpInst::ICMP_ULT || HeaderStay == CmpInst::ICMP_SLT)) ||
                                             (Step->isMinusOne() && (HeaderStay == CmpInst::ICMP_UGT || HeaderStay == CmpInst::ICMP_SGT)));
      // In a loop left from its latch (`do ... while (++i < n)`) the test is on the increment:
      // it cannot wrap after a strict test passed, nor from a constant start other than the
      // type's extreme.
      if (!StrictlyBounded && Exit->getSinglePredecessor() == Lt)
        StrictlyBounded = latchTestBoundsStep(L, Lt, Next, Step, Start);
      if (!(Next->hasNoSignedWrap() || Next->hasNoUnsignedWrap() || StrictlyBounded))
        continue;
      Counted.push_back(C);
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

Value *GradientGen::counterAtExit(CountedLoop &C, BasicBlock *B) {
  if (!C.Bound || B != C.Exit || !recomputableWithoutTape(C.Start, B, 6) ||
      !recomputableWithoutTape(C.Bound, B, 6))
    return nullptr;
  // Counting by one from Start while `IV < Bound`, the loop leaves at max(Start, Bound): the
  // no-wrap flag of the increment guarantees that it gets there.
  bool Up = C.Step->isOne(), Down = C.Step->isMinusOne();
  Intrinsic::ID Id;
  if (C.Stay == CmpInst::ICMP_NE && (Up || Down))
    return revPrimal(C.Bound, B);
  if (Up && C.Stay == CmpInst::ICMP_SLT)
    Id = Intrinsic::smax;
  else if (Up && C.Stay == CmpInst::ICMP_ULT)
    Id = Intrinsic::umax;
  else if (Down && C.Stay == CmpInst::ICMP_SGT)
    Id = Intrinsic::smin;
  else if (Down && C.Stay == CmpInst::ICMP_UGT)
    Id = Intrinsic::umin;
  else
    return nullptr;
  Value *S = revPrimal(C.Start, B), *N = revPrimal(C.Bound, B);
  IRBuilder<> RBld(RB[B].Remat->getTerminator());
  return RBld.CreateBinaryIntrinsic(Id, S, N, nullptr, C.IV->getName() + ".final");
}

Value *GradientGen::branchTellingPred(BasicBlock *BB, ArrayRef<BasicBlock *> Preds, int &TrueK) {
  if (Preds.size() != 2 || !SrcDT || !SrcDT->getNode(BB) || !SrcDT->getNode(BB)->getIDom())
    return nullptr;
  BasicBlock *D = SrcDT->getNode(BB)->getIDom()->getBlock();
  auto *Br = dyn_cast<BranchInst>(D->getTerminator());
  if (!Br || !Br->isConditional() || Br->getSuccessor(0) == Br->getSuccessor(1))
    return nullptr;
  // The reverse of BB asks which edge D took the last time it ran. That visit of D led to this
  // visit of BB, with neither D nor BB in between, when every cycle through BB passes through D:
  // both in the same innermost loop, BB not its header, and no cycle outside natural loops.
  if (SrcLI->getLoopFor(D) != SrcLI->getLoopFor(BB) || SrcLI->isLoopHeader(BB))
    return nullptr;
  if (irreducible())
    return nullptr;
  // Each predecessor must be reachable from only one of D's edges: D itself through an edge
  // straight to BB, another block when the edge dominates it (every path to it takes that edge,
  // and after the last visit of D no other edge of D is taken).
  int EdgeOf[2] = {-1, -1};
  for (unsigned P = 0; P < 2; ++P)
    for (unsigned K = 0; K < 2; ++K) {
      BasicBlock *S = Br->getSuccessor(K);
      if (S == BB ? Preds[P] == D : SrcDT->dominates(BasicBlockEdge(D, S), Preds[P]))
        EdgeOf[P] = EdgeOf[P] < 0 ? K : 2; // 2: both edges, ambiguous
    }
  if (EdgeOf[0] < 0 || EdgeOf[0] > 1 || EdgeOf[1] < 0 || EdgeOf[1] > 1 || EdgeOf[0] == EdgeOf[1])
    return nullptr;
  Value *Cond = Br->getCondition();
  if (!recomputableWithoutTape(Cond, BB, 6))
    return nullptr;
  TrueK = EdgeOf[0] == 0 ? 0 : 1;
  return Cond;
}

bool GradientGen::irreducible() {
  if (!Irreducible) {
    ReversePostOrderTraversal<const Function *> RPOT(Src);
    Irreducible = containsIrreducibleCFG<const BasicBlock *>(RPOT, *SrcLI);
  }
  return *Irreducible;
}

Value *GradientGen::secondaryCounter(PHINode *P, BasicBlock *B) {
  CountedLoop *C = CountedByHeader.lookup(P->getParent());
  if (!C || P == C->IV || !C->L->contains(B) || !P->getType()->isIntegerTy() ||
      !(C->Step->isOne() || C->Step->isMinusOne()) || P->getNumIncomingValues() != 2)
    return nullptr;
  auto *Next = dyn_cast<BinaryOperator>(P->getIncomingValueForBlock(C->Latch));
  if (!Next || Next->getOpcode() != Instruction::Add || Next->getOperand(0) != P ||
      !isa<ConstantInt>(Next->getOperand(1)))
    return nullptr;
  // After n iterations P = start + n K in P's width whether or not it wraps, and the counter,
  // which does not wrap, tells n.
  Value *IV = revPrimal(C->IV, B), *S = revPrimal(C->Start, B);
  Value *PStart = revPrimal(P->getIncomingValueForBlock(C->Pre), B);
  IRBuilder<> RBld(RB[B].Remat->getTerminator());
  Value *N = C->Step->isOne() ? RBld.CreateSub(IV, S) : RBld.CreateSub(S, IV);
  N = RBld.CreateZExtOrTrunc(N, P->getType());
  return RBld.CreateAdd(PStart, RBld.CreateMul(N, Next->getOperand(1)), P->getName());
}

BasicBlock *GradientGen::invariantIn(const Value *V, BasicBlock *B) {
  auto *I = dyn_cast<Instruction>(V);
  if (!I || !SrcLI)
    return nullptr;
  BasicBlock *Best = nullptr;
  for (Loop *L = SrcLI->getLoopFor(B); L; L = L->getParentLoop()) {
    if (L->contains(I->getParent()) || !SrcDT->dominates(I, L->getHeader()))
      break;
    if (CountedLoop *C = CountedByHeader.lookup(L->getHeader())) {
      Best = C->Exit;
      continue;
    }
    // Any other loop: every execution that returns leaves it through its one live exit, and
    // that exit's reverse runs before the loop's reverse each time.
    BasicBlock *LiveExit = liveExitOf(L);
    if (LiveExit && all_of(predecessors(LiveExit), [&](BasicBlock *P) { return L->contains(P); }))
      Best = LiveExit;
  }
  return Best;
}

Value *GradientGen::fromLoopExit(BasicBlock *Exit, Value *AugValue, Type *T, BasicBlock *B, bool Shadow,
                                 const Value *Key) {
  AllocaInst *&Slot = Hoisted[{Exit, Key, Shadow ? 1 + Lane : 0}];
  if (!Slot) {
    if (Instruction *Term = RevEntry->getTerminator())
      EntryB->SetInsertPoint(Term);
    Slot = EntryB->CreateAlloca(T, nullptr, Key->getName() + ".invariant");
    Value *Popped = pushAndPop(AugValue, T, Exit);
    IRBuilder<> XB(RB[Exit].Remat->getTerminator());
    XB.CreateStore(Popped, Slot);
  }
  IRBuilder<> RBld(RB[B].Remat->getTerminator());
  return RBld.CreateLoad(T, Slot, Key->getName());
}

GradientGen::CountedLoop *GradientGen::invariantLoad(const LoadInst *L, BasicBlock *B) {
  if (!SrcLI || L->isVolatile() || L->isAtomic())
    return nullptr;
  Loop *Lp = SrcLI->getLoopFor(L->getParent());
  CountedLoop *C = Lp ? CountedByHeader.lookup(Lp->getHeader()) : nullptr;
  // Its block must run in every iteration that reaches the latch, so that the last iteration's
  // value is the one kept.
  if (!C || !Lp->contains(B) || !Lp->isLoopInvariant(L->getPointerOperand()) ||
      !SrcDT->dominates(L->getParent(), C->Latch))
    return nullptr;
  const Value *Obj = objectBehind(L->getPointerOperand());
  if (!isIdentifiedObject(Obj))
    return nullptr;
  for (BasicBlock *BB : Lp->blocks())
    for (Instruction &I : *BB) {
      if (!I.mayWriteToMemory() || isIgnorableIntrinsic(&I))
        continue;
      const Value *Dest = nullptr;
      if (auto *SI = dyn_cast<StoreInst>(&I))
        Dest = SI->getPointerOperand();
      else if (auto *MI = dyn_cast<MemIntrinsic>(&I))
        Dest = MI->getDest();
      else if (auto *CB = dyn_cast<CallBase>(&I)) {
        // libm may set errno, which no float load reads.
        MemoryEffects ME = CB->getMemoryEffects();
        if (ME.getWithoutLoc(IRMemLocation::ErrnoMem).getWithoutLoc(IRMemLocation::InaccessibleMem).onlyReadsMemory())
          continue;
      }
      if (!Dest)
        return nullptr;
      const Value *DObj = objectBehind(Dest);
      if (DObj == Obj || !isIdentifiedObject(DObj))
        return nullptr;
    }
  return C;
}

AllocaInst *GradientGen::deferredAdjoint(LoadInst *LI, CountedLoop &C, Type *AT) {
  AllocaInst *&Slot = DeferredAdjoints[{&C, LI, Lane}];
  if (Slot)
    return Slot;
  if (Instruction *T = RevEntry->getTerminator())
    EntryB->SetInsertPoint(T);
  Slot = EntryB->CreateAlloca(AT, nullptr, LI->getName() + ".deferred.adj");
  // Zero where the reverse enters the loop (the exit's reverse, before its branch into the loop)…
  IRBuilder<>(RB[C.Exit].Remat->getTerminator()).CreateStore(Constant::getNullValue(AT), Slot);
  // …and added into the shadow where it leaves (the preheader's reverse, before the adjoints of
  // the preheader's own instructions, which may read the shadow).
  Value *SP = revShadow(LI->getPointerOperand(), C.Pre);
  IRBuilder<> FB(RB[C.Pre].Remat->getTerminator());
  Value *Sum = FB.CreateLoad(AT, Slot);
  Value *Old = FB.CreateAlignedLoad(AT, guardRev(FB, SP, LI->getPointerOperand(), C.Pre, AT, false), LI->getAlign());
  FB.CreateAlignedStore(addDerivatives(FB, Old, Sum), guardRev(FB, SP, LI->getPointerOperand(), C.Pre, AT, true),
                        LI->getAlign());
  return Slot;
}

Value *GradientGen::lastLoadedAtExit(LoadInst *L, CountedLoop &C) {
  auto *AugL = cast<Instruction>(augOf(L));
  BasicBlock &AugEntry = cast<Instruction>(AugL)->getFunction()->getEntryBlock();
  IRBuilder<> EB(&AugEntry, AugEntry.getFirstInsertionPt());
  AllocaInst *Last = EB.CreateAlloca(L->getType(), nullptr, L->getName() + ".last");
  EB.CreateStore(Constant::getNullValue(L->getType()), Last); // read only when the loop ran
  IRBuilder<> B(AugL->getNextNode());
  B.CreateStore(AugL, Last);
  BasicBlock *AugExit = cast<BasicBlock>(VA[C.Exit]);
  IRBuilder<> XB(AugExit, AugExit->getFirstInsertionPt());
  return XB.CreateLoad(L->getType(), Last, L->getName() + ".last");
}

const Value *objectBehind(const Value *P) {
  const Value *U = getUnderlyingObject(P, 12);
  if (!isa<PHINode>(U) && !isa<SelectInst>(U))
    return U;
  SmallVector<const Value *, 4> Objs;
  getUnderlyingObjects(P, Objs, nullptr, 12);
  const Value *One = nullptr;
  for (const Value *O : Objs) {
    if (isa<ConstantPointerNull>(O))
      continue;
    if (One || !(isa<AllocaInst>(O) || (isa<CallBase>(O) && isAllocator(cast<CallBase>(O)->getCalledFunction()))))
      return U;
    One = O;
  }
  return One ? One : U;
}

bool isRematerializable(const Instruction *I) {
  if (I->getType()->isFPOrFPVectorTy())
    return false;
  return isa<GetElementPtrInst>(I) || isa<CastInst>(I) || isa<CmpInst>(I) ||
         (I->isBinaryOp() && !I->isIntDivRem()) || isa<SelectInst>(I) || isa<ExtractValueInst>(I) ||
         isa<FreezeInst>(I);
}

/// Float arithmetic that costs about as much to repeat as to pop (no division, no libm calls).
bool isCheapFloatOp(const Instruction *I) {
  if (!I->getType()->isFPOrFPVectorTy())
    return false;
  if (auto *II = dyn_cast<IntrinsicInst>(I)) // what `a * b + c` and fabs() become
    return II->getIntrinsicID() == Intrinsic::fmuladd || II->getIntrinsicID() == Intrinsic::fma ||
           II->getIntrinsicID() == Intrinsic::fabs;
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
  CountedLoop *CI = CountedByIV.lookup(I);
  if (CI && CI->L->contains(B)) {
    IRBuilder<> RBld(RB[B].Remat->getTerminator());
    R = RBld.CreateLoad(I->getType(), countedSlot(*CI), I->getName());
  } else if (Value *Final = CI ? counterAtExit(*CI, B) : nullptr) {
    R = Final;
  } else if (Value *Sec = isa<PHINode>(I) ? secondaryCounter(cast<PHINode>(I), B) : nullptr) {
    R = Sec;
  } else if (isa<CmpInst>(I) && count_if(I->operands(), [&](Use &U) {
               return !recomputableWithoutTape(U.get(), B, 6);
             }) >= 2) {
    // Rebuilding the comparison would pop both operands: one flag is fewer bytes (k-means'
    // `dist < best`, whose select needs nothing else).
    R = pushAndPop(augOf(I), I->getType(), B);
  } else if (isRematerializable(I) || (isa<LoadInst>(I) && isReloadable(cast<LoadInst>(I))) ||
             (isCheapFloatOp(I) && recomputableWithoutTape(I, B, 6))) {
    Instruction *Cl = I->clone();
    for (Use &U : Cl->operands())
      U.set(revPrimal(U.get(), B));
    Cl->insertBefore(RB[B].Remat->getTerminator()->getIterator());
    Cl->setName(I->getName());
    Cl->setDebugLoc(DebugLoc());
    R = Cl;
  } else if (Value *F = isa<LoadInst>(I) ? forwardedStore(cast<LoadInst>(I), B) : nullptr) {
    R = F;
  } else if (BasicBlock *X = invariantIn(I, B)) {
    R = fromLoopExit(X, augOf(I), I->getType(), B, false, I);
  } else if (CountedLoop *C = isa<LoadInst>(I) ? invariantLoad(cast<LoadInst>(I), B) : nullptr) {
    auto Key = std::make_tuple((const BasicBlock *)C->Exit, (const Value *)I, 0u);
    R = fromLoopExit(C->Exit, Hoisted.count(Key) ? nullptr : lastLoadedAtExit(cast<LoadInst>(I), *C),
                     I->getType(), B, false, I);
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
  } else if (BasicBlock *X = invariantIn(I, B)) {
    R = fromLoopExit(X, ShA.lookup(I), I->getType(), B, true, I);
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
