// Reverse mode. For a function f the engine emits
//   augmented_f(args, shadows, tape)        the primal, plus shadow pointers, pushing to the tape
//   reverse_f(args, shadows, [dret], tape)  the adjoint sweep, block by block backwards
// Control flow is replayed from the predecessor index each multi-predecessor block records; the
// primal values a block's reverse needs are recomputed there when cheap and pure (addresses,
// integer arithmetic) and otherwise taken from the tape. Adjoints live in stack slots that
// mem2reg promotes once generation is done.
#include "Reverse/SlotInits.h"
#include "Engine/ShadowAlignment.h"
#include "Reverse/GradientGen.h"
#include "Analysis/TypedCopies.h"
#include "Engine/Refusals.h"
#include "Engine/FunctionShadows.h"
#include "Reverse/ShadowCheck.h"
#include "Rules/NodeLinks.h"
#include "Support/Diagnostics.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Intrinsics.h"

namespace synthase {
namespace gradient {

void GradientGen::buildAugmented() {
  Type *RT = Src->getReturnType();
  if (Sig.RetShadow) {
    SmallVector<Type *, 4> Fields(1 + width(), RT); // the primal, then each lane's shadow
    RT = StructType::get(Src->getContext(), Fields);
  }
  ClonedBody CB = cloneWithShadows(E, Src, Sig, {PointerType::getUnqual(Src->getContext())}, RT,
                                   "augmented_" + Sig.Fn->getName(), VA);
  Aug = CB.NF;
  TapeA = CB.Extra;
  TapeA->setName("tape");
  for (unsigned L = 0; L < width(); ++L)
    inLane(L, [&] {
      for (Argument &A : Src->args())
        if (!CB.ArgShadows[A.getArgNo()].empty())
          ShA[&A] = CB.ArgShadows[A.getArgNo()][L];
    });
  if (shadowChecksEnabled()) {
    IRBuilder<> B(&*Aug->getEntryBlock().getFirstInsertionPt());
    for (unsigned L = 0; L < width(); ++L)
      inLane(L, [&] {
        for (Argument &A : Src->args())
          if (Value *Sh = ShA.lookup(&A))
            emitShadowCheck(B, VA[&A], Sh, "argument " + Twine(A.getArgNo()) + " of " + displayName(Sig.Fn->getName()));
      });
  }
}

void GradientGen::fillAugmented() {
  ReversePostOrderTraversal<Function *> RPO(Src);
  for (BasicBlock *BB : RPO) {
    SmallVector<Instruction *, 32> Insts;
    for (Instruction &I : *BB)
      Insts.push_back(&I);
    if (Live.count(BB)) // paths that never return run as primal code only
      for (Instruction *I : Insts) {
        for (unsigned L = 0; L < width(); ++L) {
          setLane(L);
          augInstruction(I);
        }
        setLane(0);
        if (Failed)
          return; // what follows may depend on what failed: stop cleanly, the pair is dropped
      }
    // A block with several predecessors records which one it was entered from.
    SmallVector<BasicBlock *, 4> Preds = reachablePreds(BB);
    if (Preds.size() > 1) {
      auto *AB = cast<BasicBlock>(VA[BB]);
      IRBuilder<> PB(AB, AB->begin());
      PHINode *Idx = PB.CreatePHI(PB.getInt32Ty(), Preds.size(), "pred.index");
      for (BasicBlock *P : predecessors(BB)) {
        auto It = find(Preds, P); // an unreachable predecessor never enters: any index will do
        Idx->addIncoming(PB.getInt32(It == Preds.end() ? 0 : It - Preds.begin()), cast<BasicBlock>(VA[P]));
      }
      PredIndex[BB] = Idx;
    }
  }
  // Incoming values of shadow phis.
  for (unsigned L = 0; L < width(); ++L)
    inLane(L, [&] {
      for (BasicBlock *BB : RPO)
        for (PHINode &P : BB->phis())
          if (auto *SP = dyn_cast_or_null<PHINode>(ShA.lookup(&P)))
            for (unsigned k = 0; k < P.getNumIncomingValues(); ++k) {
              Value *S = augShadow(P.getIncomingValue(k));
              SP->addIncoming(S ? S : Constant::getNullValue(P.getType()),
                              cast<BasicBlock>(VA[P.getIncomingBlock(k)]));
            }
    });
}


void GradientGen::buildReverse() {
  LLVMContext &C = Src->getContext();
  SmallVector<Type *, 16> Params;
  for (Argument &A : Src->args()) {
    Params.push_back(A.getType());
    if (Sig.Acts[A.getArgNo()] == ArgKind::Dup || Sig.Acts[A.getArgNo()] == ArgKind::DupNoNeed)
      Params.append(width(), A.getType());
  }
  Type *RT = Src->getReturnType();
  if (Sig.RetActive)
    Params.append(width(), RT);
  Params.push_back(PointerType::getUnqual(C));
  SmallVector<Type *, 8> Outs;
  for (Argument &A : Src->args())
    if (Sig.Acts[A.getArgNo()] == ArgKind::Out)
      Outs.append(width(), A.getType()); // lane by lane: Enzyme's [width x T] per argument
  Type *ORT = Outs.empty() ? Type::getVoidTy(C) : Outs.size() == 1 ? Outs[0] : StructType::get(C, Outs);
  Rev = Function::Create(FunctionType::get(ORT, Params, false), GlobalValue::InternalLinkage,
                         "reverse_" + Sig.Fn->getName(), E.module());
  // The reverse sweep runs no code that could unwind unless the primal could; with unwind tables
  // a panic that does escape it still unwinds instead of aborting.
  if (Src->doesNotThrow())
    Rev->addFnAttr(Attribute::NoUnwind);
  if (Src->hasFnAttribute(Attribute::UWTable))
    Rev->addFnAttr(Src->getFnAttribute(Attribute::UWTable));
  for (StringRef K : {"target-cpu", "target-features"})
    if (Src->hasFnAttribute(K))
      Rev->addFnAttr(Src->getFnAttribute(K));
  unsigned Pos = 0;
  for (Argument &A : Src->args()) {
    RevArg[&A] = Rev->getArg(Pos++);
    Rev->getArg(Pos - 1)->setName(A.getName());
    if (Sig.Acts[A.getArgNo()] == ArgKind::Dup || Sig.Acts[A.getArgNo()] == ArgKind::DupNoNeed)
      for (unsigned L = 0; L < width(); ++L)
        inLane(L, [&] {
          RevArgSh[&A] = Rev->getArg(Pos++);
          Rev->getArg(Pos - 1)->setName("d_" + A.getName());
        });
  }
  if (Sig.RetActive)
    for (unsigned L = 0; L < width(); ++L)
      inLane(L, [&] {
        DRet = Rev->getArg(Pos++);
        DRet->setName("dret");
      });
  TapeR = Rev->getArg(Pos++);
  TapeR->setName("tape");
}

void GradientGen::fillReverse() {
  LLVMContext &C = Src->getContext();
  Type *ORT = Rev->getReturnType();

  RevEntry = BasicBlock::Create(C, "entry", Rev);
  IRBuilder<> EB(RevEntry);
  EntryB = &EB;
  TapeCur = emitTapeCursor(E, EB, TapeR);
  ReversePostOrderTraversal<Function *> RPO(Src);
  BasicBlock *RetBlock = nullptr;
  for (BasicBlock *BB : RPO) {
    RevBlock R;
    R.Pops = BasicBlock::Create(C, BB->getName() + ".rev", Rev);
    R.Remat = BasicBlock::Create(C, BB->getName() + ".rev.remat", Rev);
    R.Body = BasicBlock::Create(C, BB->getName() + ".rev.body", Rev);
    BranchInst::Create(R.Remat, R.Pops);
    BranchInst::Create(R.Body, R.Remat);
    RB[BB] = R;
    if (isa<ReturnInst>(BB->getTerminator())) {
      if (RetBlock) {
        fail(BB->getTerminator(), "internal: more than one return block after simplification");
        return;
      }
      RetBlock = BB;
    }
  }
  if (!RetBlock) {
    // Every path ends in unreachable (e.g. a store through a pointer the simplifier proved null):
    // the forward sweep never hands over to the reverse one, which is left as a trap. Enzyme
    // compiles such a function too; calling it is the program's error, not the derivative's.
    StringRef Name = Src->getName().split(".synthase.primal").first;
    const Function *Orig = Src->getParent()->getFunction(Name);
    reportWarning(Orig ? Orig : Src, &*Src->getEntryBlock().begin(),
                  "'" + Name + "' never returns (every path ends in unreachable code): its "
                  "reverse sweep is never reached and traps");
    for (auto &KV : RB)
      IRBuilder<>(KV.second.Body).CreateUnreachable();
    EB.CreateCall(Intrinsic::getOrInsertDeclaration(Rev->getParent(), Intrinsic::trap));
    EB.CreateUnreachable();
    return;
  }
  RevExit = BasicBlock::Create(C, "exit", Rev);
  // Seed the adjoint of the returned value.
  if (Sig.RetActive)
    if (Value *RV = cast<ReturnInst>(RetBlock->getTerminator())->getReturnValue())
      for (unsigned L = 0; L < width(); ++L)
        inLane(L, [&] { accumulate(EB, RV, DRet); });

  // Reverse blocks in any order: each is self-contained, connected by the recorded control flow.
  for (BasicBlock *BB : RPO) {
    RevBlock &R = RB[BB];
    IRBuilder<> Bd(R.Body);
    if (!Live.count(BB)) {
      Bd.CreateUnreachable(); // a path that never returns is never reversed
      continue;
    }
    for (Instruction &I : reverse(*BB)) {
      if (isa<PHINode>(I) || I.isTerminator())
        continue;
      for (unsigned L = 0; L < width(); ++L) {
        setLane(L);
        reverseInstruction(&I, BB, Bd);
      }
      setLane(0);
    }
    // Phis: the adjoint flows to the incoming value of the edge that was taken.
    SmallVector<std::tuple<PHINode *, Value *, unsigned>, 4> PhiAdj;
    for (PHINode &P : BB->phis())
      if (active(&P))
        for (unsigned L = 0; L < width(); ++L)
          PhiAdj.push_back({&P, inLane(L, [&] { return takeAdjoint(Bd, &P); }), L});
    SmallVector<BasicBlock *, 4> Preds = reachablePreds(BB);
    auto edgeTo = [&](BasicBlock *P) -> BasicBlock * {
      if (PhiAdj.empty())
        return RB[P].Pops;
      BasicBlock *Edge = BasicBlock::Create(C, BB->getName() + ".from." + P->getName(), Rev);
      IRBuilder<> EBd(Edge);
      for (auto &[Phi, D, L] : PhiAdj)
        inLane(L, [&] { accumulate(EBd, Phi->getIncomingValueForBlock(P), D); });
      EBd.CreateBr(RB[P].Pops);
      return Edge;
    };
    if (CountedLoop *C = CountedByExit.lookup(BB))
      Bd.CreateStore(revPrimal(C->IV, BB), countedSlot(*C)); // the counter's final value
    CountedLoop *CH = CountedByHeader.lookup(BB);
    if (Preds.empty()) {
      Bd.CreateBr(RevExit);
    } else if (Preds.size() == 1) {
      BranchInst *Br = Bd.CreateBr(edgeTo(Preds[0]));
      if (CountedLoop *C = CountedByExit.lookup(BB))
        LoopEntries[C] = Br;
    } else if (CH) {
      Value *Cur = revPrimal(CH->IV, BB);
      Bd.CreateStore(Bd.CreateSub(Cur, CH->Step), countedSlot(*CH));
      Value *Start = revPrimal(CH->Start, BB); // invariant in the loop: taped once, at its exit
      Bd.CreateCondBr(Bd.CreateICmpEQ(Cur, Start), edgeTo(CH->Pre), edgeTo(CH->Latch));
    } else if (int TrueK = -1; Value *Cond = branchTellingPred(BB, Preds, TrueK)) {
      Bd.CreateCondBr(revPrimal(Cond, BB), edgeTo(Preds[TrueK]), edgeTo(Preds[1 - TrueK]));
    } else {
      Value *Idx = pushAndPop(PredIndex[BB], Bd.getInt32Ty(), BB);
      SwitchInst *SW = Bd.CreateSwitch(Idx, edgeTo(Preds.back()), Preds.size() - 1);
      for (unsigned k = 0; k + 1 < Preds.size(); ++k)
        SW->addCase(Bd.getInt32(k), edgeTo(Preds[k]));
    }
  }
  // Reverse entry: start at the return block's reverse; exit returns the adjoints of Out args.
  EB.CreateBr(RB[RetBlock].Pops);
  IRBuilder<> XB(RevExit);
  SmallVector<Value *, 8> Adj;
  for (Argument &A : Src->args())
    if (Sig.Acts[A.getArgNo()] == ArgKind::Out)
      for (unsigned L = 0; L < width(); ++L)
        Adj.push_back(active(&A) ? inLane(L, [&] { return (Value *)XB.CreateLoad(A.getType(), slot(&A)); })
                                 : Constant::getNullValue(A.getType()));
  if (Adj.empty())
    XB.CreateRetVoid();
  else if (Adj.size() == 1)
    XB.CreateRet(Adj[0]);
  else {
    Value *S = PoisonValue::get(ORT);
    for (unsigned i = 0; i < Adj.size(); ++i)
      S = XB.CreateInsertValue(S, Adj[i], i);
    XB.CreateRet(S);
  }
  // Slot allocas must precede everything in the entry block. The first non-alloca stays first
  // as allocas move before it (looking it up per slot was quadratic in the number of slots).
  auto FirstNonAlloca = RevEntry->getFirstNonPHIOrDbgOrAlloca();
  for (unsigned L = 0; L < width(); ++L)
    inLane(L, [&] {
      for (auto &KV : Slots)
        if (KV.second->getParent() == RevEntry && KV.second->getIterator() != FirstNonAlloca)
          KV.second->moveBefore(FirstNonAlloca);
    });
}

void GradientGen::returnShadowFromAugmented(GradientPair &Out) {
  bool MaybeNull = NullShadows;
  for (BasicBlock &BB : *Src)
    if (auto *R = dyn_cast<ReturnInst>(BB.getTerminator())) {
      auto *RC = dyn_cast_or_null<ReturnInst>(VA.lookup(R));
      if (!RC)
        continue;
      Value *RV = R->getReturnValue();
      IRBuilder<> B(RC);
      Value *Pair = PoisonValue::get(Aug->getReturnType());
      Pair = B.CreateInsertValue(Pair, RC->getReturnValue(), 0);
      for (unsigned L = 0; L < width(); ++L) {
        Value *SV = inLane(L, [&] { return escapingAugShadow(B, RV, augShadow(RV)); });
        MaybeNull |= !SV || isa<PHINode>(RV) || isa<SelectInst>(RV) ||
                     (isa<CallBase>(RV) && !isAllocator(cast<CallBase>(RV)->getCalledFunction()));
        Pair = B.CreateInsertValue(Pair, SV ? SV : Constant::getNullValue(RV->getType()), 1 + L);
      }
      B.CreateRet(Pair);
      RC->eraseFromParent();
    }
  Out.RetShadowMaybeNull = MaybeNull;
}

/// An integer narrower than every float type of its memory that is also computed with (compared,
/// extended, added), not only copied: a count or index kept beside floating-point data, as the
/// u16 lengths of a B-tree node. Float bytes moved in pieces (a byte-wise copy loop) are only
/// loaded and stored.
static bool narrowCounter(const LoadInst *L, const MemoryLayout &Lay) {
  const DataLayout &DL = L->getModule()->getDataLayout();
  uint64_t Bits = DL.getTypeSizeInBits(L->getType()).getFixedValue();
  if (!L->getType()->isIntegerTy() || Lay.Floats.empty())
    return false;
  for (Type *F : Lay.Floats)
    if (DL.getTypeSizeInBits(F).getFixedValue() <= Bits)
      return false;
  return any_of(L->users(), [](const User *U) {
    return isa<CmpInst>(U) || isa<BinaryOperator>(U) || isa<CastInst>(U) || isa<SwitchInst>(U);
  });
}

/// An integer narrower than every float the memory holds, moved beside other members of its
/// record (loads from the same base at other constant offsets in its block) but alone at its
/// width: no load reads the bytes right before or after it so, as moving a double in two halves
/// would (and a byte loop, with no siblings, stays refused). A field of its own (std::tuple<int, double, double>'s int, relocated member by member
/// as i64, i64, i32 when a vector grows at -O0), not part of a float.
static bool narrowFieldMovedAlone(const LoadInst *L, const MemoryLayout &Lay) {
  const DataLayout &DL = L->getModule()->getDataLayout();
  uint64_t Bytes = DL.getTypeStoreSize(L->getType());
  if (!L->getType()->isIntegerTy() || Lay.Floats.empty() ||
      any_of(Lay.Floats, [&](Type *F) { return DL.getTypeStoreSize(F) <= Bytes; }))
    return false;
  int64_t Off = 0;
  const Value *Base = GetPointerBaseWithConstantOffset(L->getPointerOperand(), Off, DL);
  bool Siblings = false; // other members of the record moved from the same base
  for (const Instruction &I : *L->getParent()) {
    auto *O = dyn_cast<LoadInst>(&I);
    int64_t OO = 0;
    if (!O || O == L || GetPointerBaseWithConstantOffset(O->getPointerOperand(), OO, DL) != Base)
      continue;
    if (O->getType() == L->getType() && (OO == Off + (int64_t)Bytes || OO == Off - (int64_t)Bytes))
      return false;
    Siblings = true;
  }
  return Siblings;
}

void GradientGen::classifyIntegerStores() {
  for (BasicBlock &BB : *Src) {
    if (!Live.count(&BB))
      continue;
    for (Instruction &I : BB) {
      auto *SI = dyn_cast<StoreInst>(&I);
      Value *V = SI ? SI->getValueOperand() : nullptr;
      if (!SI || !V->getType()->isIntOrIntVectorTy() || !shadowed(SI->getPointerOperand()) ||
          (Act.IntMoves.count(V) && active(V)))
        continue;
      auto *L = dyn_cast<LoadInst>(V);
      bool FromShadowed = L && shadowed(L->getPointerOperand());
      MemoryLayout Lay = FromShadowed ? moveLayout(DL, L) : accessLayout(DL, SI->getPointerOperand());
      if (storesRebuiltAddress(SI, Lay)) {
        if (Lane == 0)
          refuseRebuiltAddress(Sig.Fn, SI);
        Failed = true;
        continue;
      }
      if (movesNoDerivativeData(SI) || (L && movesNoDerivativeData(L))) {
        // The integer bytes of a copied record (a buffer's count beside its pointer, `*out =
        // local`): kept in step like any integer field, as forward mode's byte copy keeps them.
        if (!Act.IntMoves.count(V) && mayMirrorInteger(SI, Lay))
          IntegerMirrors.insert(SI);
        continue;
      }
      uint64_t Bytes = DL.getTypeStoreSize(V->getType());
      bool Mixed = false;
      if (Lay.Floats.size() > 1 && Lay.knownWithin(Bytes) && !Lay.floatFieldsOverlapping(DL, Bytes, Mixed) && !Mixed)
        continue; // padding or an integer field of a struct that also holds floats of two widths
      // What the stored bytes hold: their own fields when known, else what the object holds.
      std::optional<MemoryLayout::Kinds> K = Lay.kindsWithin(DL, Bytes);
      bool Floats = K ? !K->Floats.empty() : !Lay.Floats.empty();
      bool Pointers = K ? K->Pointers : Lay.Pointers;
      if (FromShadowed && ((!Floats && Pointers) || loadsPointerBits(L))) {
        ShadowMoves.insert(SI);
      } else if (FromShadowed && Floats && !Act.IntMoves.count(V) && (narrowCounter(L, Lay) || tbaaReadsInteger(L) || narrowFieldMovedAlone(L, Lay))) {
        // A small integer field (a node's length) beside floats accessed at run-time offsets, or
        // one the front end typed as an integer (std::pair<int, double>'s first, moved by sort).
        continue;
      } else if (FromShadowed && Floats && !Act.IntMoves.count(V)) {
        std::string TyName;
        raw_string_ostream(TyName) << *V->getType();
        fail(SI, "floating-point data is moved as " + TyName +
                     " values whose width does not match its element type, so its derivative cannot follow",
             "copy the data with memcpy of whole elements, or assign element by element");
      } else if (const Instruction *Bits = (Floats || !K) ? launderedFloatBits(V, [&](const Value *X) { return Act.Varied.count(X) > 0; },
                                                                       [&](const Value *X) {
                                                                         return Act.IntMoves.count(X) && Act.Varied.count(X) && floatBitsKnown(DL, X);
                                                                       })
                                                  : nullptr) {
        fail(const_cast<Instruction *>(Bits), "float bits changed by integer arithmetic are stored as float data",
             "reinterpreting float bits is not differentiable; compute the value with floating-point operations");
      } else if (Floats && !storesIntegerField(SI)) {
        IntOverwrites.insert(SI);
      } else if ((!K || !Pointers) && !Act.IntMoves.count(V) && mayMirrorInteger(SI, Lay)) {
        // A computed integer (a Vec's new length, a count) stored where no float lives, or into
        // a field typed as an integer: the shadow keeps the primal's value, so the caller's
        // shadow object stays well formed.
        IntegerMirrors.insert(SI);
      } else if (FromShadowed && K && !Floats && !Act.IntMoves.count(V)) {
        // An integer moved between shadowed objects as it is (a Vec's length copied along with
        // the Vec into a vector of vectors): its shadow moves too, as forward mode's byte copy does.
        ShadowMoves.insert(SI);
      }
    }
  }
}

void GradientGen::findInPlaceUpdates() {
  if (Sig.Parallel)
    return;
  for (BasicBlock &BB : *Src)
    for (Instruction &I : BB) {
      auto *SI = dyn_cast<StoreInst>(&I);
      if (!SI || !SI->isSimple() || !SI->getValueOperand()->getType()->isFloatingPointTy())
        continue;
      auto *V = dyn_cast<Instruction>(SI->getValueOperand());
      if (!V || !V->hasOneUse() || V->getParent() != &BB)
        continue;
      // The operand whose partial is 1: either side of fadd, the minuend of fsub, fmuladd's addend.
      SmallVector<Value *, 2> Unit;
      if (V->getOpcode() == Instruction::FAdd)
        Unit = {V->getOperand(0), V->getOperand(1)};
      else if (V->getOpcode() == Instruction::FSub)
        Unit = {V->getOperand(0)};
      else if (auto *II = dyn_cast<IntrinsicInst>(V); II && (II->getIntrinsicID() == Intrinsic::fmuladd ||
                                                          II->getIntrinsicID() == Intrinsic::fma))
        Unit = {II->getArgOperand(2)};
      for (Value *U : Unit) {
        auto *L = dyn_cast<LoadInst>(U);
        if (!L || !L->isSimple() || L->getParent() != &BB || !L->hasOneUse() || !active(L) || !active(V) ||
            L->getPointerOperand() != SI->getPointerOperand() || L->getType() != SI->getValueOperand()->getType() ||
            (V->getNumOperands() >= 2 && V->getOperand(0) == V->getOperand(1)))
          continue;
        // Nothing between the load and the store may write memory.
        bool Clean = true;
        for (Instruction *J = L->getNextNode(); J != SI && Clean; J = J->getNextNode())
          Clean = !J->mayWriteToMemory() || isIgnorableIntrinsic(J);
        if (Clean) {
          InPlaceUpdates.insert(SI);
          InPlaceUpdates.insert(L);
          break;
        }
      }
    }
}

void GradientGen::skipZeroAdjointLoops() {
  if (Sig.Parallel)
    return;
  for (auto &[C, Br] : LoopEntries) {
    // The loop's reverse must do nothing but add multiples of the adjoints that leave it: no
    // pops (the tape would fall out of step), no stores or calls whose reverse has effects of
    // its own (zeroing a stored shadow, a callee's reverse sweep).
    bool Linear = true;
    SmallVector<Instruction *, 8> Outs;
    for (BasicBlock *BB : C->L->blocks()) {
      auto P = Pushes.find(BB);
      Linear &= P == Pushes.end() || P->second.empty();
      for (Instruction &I : *BB) {
        if (isa<StoreInst>(I) || isa<AllocaInst>(I) || isa<AtomicRMWInst>(I) || isa<AtomicCmpXchgInst>(I) ||
            (isa<CallBase>(I) && !isIgnorableIntrinsic(&I) && !findLocalRule(&I)))
          Linear = false;
        if (active(&I) && any_of(I.users(), [&](const User *U) {
              return !C->L->contains(cast<Instruction>(U)->getParent());
            }))
          Outs.push_back(&I);
      }
    }
    if (!Linear)
      continue;
    // Enter the loop's reverse only when some adjoint leaving it is nonzero: after a running
    // minimum, all but one of k-means' distance loops per point get a zero adjoint.
    IRBuilder<> Bd(Br);
    Value *Any = Bd.getFalse();
    for (Instruction *I : Outs)
      for (unsigned L = 0; L < width(); ++L)
        inLane(L, [&] {
          AllocaInst *S = slot(I);
          Value *D = Bd.CreateLoad(S->getAllocatedType(), S);
          Value *NZ = D->getType()->isFPOrFPVectorTy() ? Bd.CreateFCmpUNE(D, Constant::getNullValue(D->getType()))
                                                         : Bd.CreateICmpNE(D, Constant::getNullValue(D->getType()));
          if (NZ->getType()->isVectorTy())
            NZ = Bd.CreateOrReduce(NZ);
          Any = Bd.CreateOr(Any, NZ);
        });
    BasicBlock *Into = Br->getSuccessor(0);
    Bd.CreateCondBr(Any, Into, RB[C->Pre].Pops);
    Br->eraseFromParent();
  }
}

bool GradientGen::run(GradientPair &Out, function_ref<void(GradientPair)> Register) {
  Parked.resize(width());
  Act = analyzeActivity(E, *Src, Sig.Acts, Sig.RetActive, /*InertMemory=*/true);
  Live = returningBlocks(*Src);
  NullShadows = Sig.ShadowArgsMaybeNull || mayStoreNullShadows(*Src, [&](const Value *V) { return shadowed(V); });
  CalleeArgsMaybeNull = NullShadows || any_of(instructions(*Src), [&](Instruction &I) {
                          return isDefinedCall(&I) && I.getType()->isPointerTy() && shadowed(&I);
                        });
  classifyIntegerStores();
  findInPlaceUpdates();
  if (Failed)
    return false;
  analyzeWrites();
  findCountedLoops();
  buildAugmented();
  buildReverse();
  Out = {Aug, Rev};
  Register(Out);
  fillAugmented();
  if (Failed)
    return false;
  if (Sig.RetShadow)
    returnShadowFromAugmented(Out);
  fillReverse();
  if (Failed)
    return false;
  // Now every reverse block has asked for what it needs: drop what can be rebuilt from the rest,
  // and emit the pushes.
  trimPops();
  skipZeroAdjointLoops();
  syncTapeCursor(E, *Rev, TapeR, TapeCur);
  SmallVector<std::pair<BasicBlock *, SmallVector<Value *, 8>>, 16> AugPushes;
  for (auto &[BB, Vals] : Pushes)
    AugPushes.push_back({cast<BasicBlock>(VA[BB]), SmallVector<Value *, 8>(Vals.begin(), Vals.end())});
  reportTapePushes(*Aug, AugPushes);
  emitAllTapePushes(E, *Aug, TapeA, AugPushes);
  promoteTapeFields(*Aug, TapeA);
  promoteTapeFields(*Rev, TapeR);
  return true;
}

} // namespace gradient

using gradient::GradientGen;

GradientPair Engine::gradientPair(const Signature &S) {
  if (S.UnchangedArgs && (Custom.reverseRule(S.Fn) || isIndirectTrampoline(S.Fn))) {
    Signature Plain = S; // only generated bodies re-read memory: one pair whatever the promise
    Plain.UnchangedArgs = 0;
    return gradientPair(Plain);
  }
  auto It = Gradients.find(S);
  if (It != Gradients.end())
    return It->second;
  if (Custom.reverseRule(S.Fn)) {
    if (S.Width > 1) {
      reportError(S.Fn, nullptr,
                  "vector reverse mode (enzyme_width " + Twine(S.Width) + ") through the registered "
                  "gradient of '" + S.Fn->getName() + "' is not supported",
                  "call the reverse mode once per lane, or differentiate the body instead of registering it");
      return Gradients[S] = {};
    }
    return Gradients[S] = Custom.gradient(*this, S);
  }
  if (isNodeLinkHelper(S.Fn)) // std::map / std::list node links: the same call on the shadows
    return Gradients[S] = nodeLinkGradient(*this, S);
  if (isIndirectTrampoline(S.Fn) && S.Width > 1) {
    // Blame the user's call (a virtual call, a function pointer, std::function), not the trampoline.
    const CallBase *At = nullptr;
    for (const User *U : S.Fn->users())
      if (auto *CB = dyn_cast<CallBase>(U); CB && CB->getCalledOperand() == S.Fn && (!At || (!At->getDebugLoc() && CB->getDebugLoc())))
        At = CB;
    // The call sits in generated code by now: name the user's function its debug info names.
    const Function *In = At ? At->getFunction() : S.Fn;
    if (At && At->getDebugLoc())
      if (DISubprogram *SP = At->getDebugLoc()->getScope()->getSubprogram())
        if (Function *Src = M.getFunction(SP->getLinkageName().empty() ? SP->getName() : SP->getLinkageName()))
          In = Src;
    std::string Where = At ? sourceLocation(At) : std::string();
    reportError(In, nullptr,
                "vector reverse mode (enzyme_width " + Twine(S.Width) +
                    ") through an indirect call (a virtual call, a function pointer, std::function) is not supported" +
                    (Where.empty() ? std::string() : " (the call at " + Where + ")"),
                "call the reverse mode once per lane (width 1), or use vector forward mode, which follows indirect calls");
    return Gradients[S] = {};
  }
  if (isIndirectTrampoline(S.Fn))
    return Gradients[S] = indirectGradient(*this, S, [&](GradientPair P) {
             Gradients[S] = P, noteGenerated(P.Augmented), noteGenerated(P.Reverse);
           });
  if (S.Fn->isVarArg()) {
    refuseVariadic(S.Fn);
    return Gradients[S] = {};
  }
  Function *Src = primalOf(S.Fn);
  if (refuseUnsupportedBody(S.Fn, Src))
    return Gradients[S] = {};
  GradientGen G(*this, S, Src);
  // Recursive calls see the pair being built: register declarations first.
  GradientPair GP;
  bool OK = G.run(GP, [&](GradientPair P) {
    Gradients[S] = P;
    noteGenerated(P.Augmented);
    noteGenerated(P.Reverse);
  });
  OK = OK && verifyGenerated(GP.Augmented, S.Fn) && verifyGenerated(GP.Reverse, S.Fn);
  if (OK)
    Gradients[S] = GP; // now with what generation learned (RetShadowMaybeNull)
  if (!OK) {
    for (Function *F : {GP.Augmented, GP.Reverse})
      if (F)
        F->deleteBody(), F->setLinkage(GlobalValue::ExternalLinkage);
    Gradients[S] = {};
    return {};
  }
  relaxVectorAlignment(*GP.Augmented);
  relaxVectorAlignment(*GP.Reverse);
  simplifier().simplifyGenerated(*GP.Augmented);
  placeSlotInits(*GP.Reverse);
  simplifier().simplifyGenerated(*GP.Reverse);
  return GP;
}

} // namespace synthase
