#include "Reverse/Tape.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace llvm;

namespace synthase {

uint64_t tapeSlotSize(const DataLayout &DL, Type *T) {
  return alignTo(DL.getTypeAllocSize(T).getFixedValue(), 8);
}

/// Makes room for Bytes more bytes: one compare, and a realloc on the unlikely edge. Growth is
/// inline rather than a call so that, once the sweeps are inlined into their caller, the tape's
/// fields stay in registers.
static void emitReserve(Engine &E, Instruction *Before, Value *Tape, Value *Bytes) {
  StructType *TT = E.tapeType();
  IRBuilder<> B(Before);
  Value *TopP = B.CreateStructGEP(TT, Tape, 1), *CapP = B.CreateStructGEP(TT, Tape, 2);
  Value *Need = B.CreateAdd(B.CreateLoad(B.getInt64Ty(), TopP), Bytes);
  Value *Full = B.CreateICmpUGT(Need, B.CreateLoad(B.getInt64Ty(), CapP));
  Instruction *Then = SplitBlockAndInsertIfThen(
      Full, Before, false, MDBuilder(Before->getContext()).createUnlikelyBranchWeights());
  IRBuilder<> GB(Then);
  Value *Cap = GB.CreateLoad(GB.getInt64Ty(), CapP);
  Value *Dbl = GB.CreateShl(Cap, 1);
  Value *NewCap = GB.CreateSelect(GB.CreateICmpUGT(Dbl, Need), Dbl, Need);
  NewCap = GB.CreateSelect(GB.CreateICmpULT(NewCap, GB.getInt64(1 << 16)), GB.getInt64(1 << 16), NewCap);
  FunctionCallee Realloc = E.module().getOrInsertFunction("realloc", GB.getPtrTy(), GB.getPtrTy(), GB.getInt64Ty());
  Value *BaseP = GB.CreateStructGEP(TT, Tape, 0);
  // The first growth leaves the inline buffer in the caller's frame: copy it to the heap.
  Value *Old = GB.CreateLoad(GB.getPtrTy(), BaseP);
  Value *Inline = GB.CreateICmpULE(Cap, GB.getInt64(InlineTapeBytes));
  CallInst *NewBase = GB.CreateCall(Realloc, {GB.CreateSelect(Inline, ConstantPointerNull::get(GB.getPtrTy()), Old), NewCap});
  Value *Top = GB.CreateLoad(GB.getInt64Ty(), TopP);
  CallInst *Copy = GB.CreateMemCpy(NewBase, Align(8), Old, Align(8), GB.CreateSelect(Inline, Top, GB.getInt64(0)));
  MDNode *Grow = MDNode::get(Before->getContext(), {});
  NewBase->setMetadata(TapeGrowMD, Grow);
  Copy->setMetadata(TapeGrowMD, Grow);
  GB.CreateStore(NewBase, BaseP);
  GB.CreateStore(NewCap, CapP);
}

static void emitPushes(Engine &E, BasicBlock *BB, Value *Tape, ArrayRef<Value *> Vals, bool Reserved) {
  if (Vals.empty())
    return;
  const DataLayout &DL = E.module().getDataLayout();
  StructType *TT = E.tapeType();
  uint64_t Total = 0;
  for (Value *V : Vals)
    Total += tapeSlotSize(DL, V->getType());
  Instruction *Term = BB->getTerminator();
  if (!Reserved)
    emitReserve(E, Term, Tape, ConstantInt::get(Type::getInt64Ty(BB->getContext()), Total));
  IRBuilder<> B(Term);
  Value *TopP = B.CreateStructGEP(TT, Tape, 1);
  Value *Top = B.CreateLoad(B.getInt64Ty(), TopP, "tape.top");
  Value *Base = B.CreateLoad(B.getPtrTy(), B.CreateStructGEP(TT, Tape, 0), "tape.base");
  Value *At = B.CreateGEP(B.getInt8Ty(), Base, Top);
  uint64_t Off = 0;
  MDNode *Push = MDNode::get(BB->getContext(), {});
  for (Value *V : Vals) {
    B.CreateAlignedStore(V, B.CreateConstGEP1_64(B.getInt8Ty(), At, Off), Align(8))->setMetadata(TapePushMD, Push);
    Off += tapeSlotSize(DL, V->getType());
  }
  B.CreateStore(B.CreateAdd(Top, B.getInt64(Total)), TopP);
}

void emitAllTapePushes(Engine &E, Function &Aug, Value *Tape,
                       ArrayRef<std::pair<BasicBlock *, SmallVector<Value *, 8>>> Pushes) {
  const DataLayout &DL = E.module().getDataLayout();
  DominatorTree DT(Aug);
  LoopInfo LI(DT);
  TargetLibraryInfoImpl TLII(Triple(E.module().getTargetTriple()));
  TargetLibraryInfo TLI(TLII);
  AssumptionCache AC(Aug);
  ScalarEvolution SE(Aug, TLI, AC, DT, LI);
  DenseMap<Loop *, uint64_t> BytesPerIter;
  uint64_t Bound = 0; // without loops every block runs at most once: the sum bounds any path
  for (auto &[BB, Vals] : Pushes)
    for (Value *V : Vals) {
      Bound += tapeSlotSize(DL, V->getType());
      if (Loop *L = LI.getLoopFor(BB))
        BytesPerIter[L] += tapeSlotSize(DL, V->getType());
    }
  bool CallsGenerated = any_of(instructions(Aug), [&](Instruction &I) {
    auto *CB = dyn_cast<CallBase>(&I);
    return CB && CB->getCalledFunction() && E.generated().count(CB->getCalledFunction());
  });
  if (LI.empty() && !CallsGenerated)
    E.setTapeBound(&Aug, Bound);
  // Decide and expand every reservation before the CFG changes under the analyses.
  SmallPtrSet<Loop *, 8> Reserved;
  SmallVector<std::pair<Instruction *, Value *>, 8> Reservations;
  for (auto &[L, Bytes] : BytesPerIter) {
    BasicBlock *Pre = L->getLoopPreheader();
    if (!Pre || !L->isInnermost())
      continue;
    bool CallsOut = false; // a callee's augmented sweep pushes too, unreserved
    for (BasicBlock *BB : L->blocks())
      for (Instruction &I : *BB)
        if (auto *CB = dyn_cast<CallBase>(&I))
          CallsOut |= CB->getCalledFunction() && E.generated().count(CB->getCalledFunction());
    if (CallsOut)
      continue;
    // Only an exact count: a bound such as UINT_MAX would reserve absurd amounts of memory.
    const SCEV *BTC = SE.getBackedgeTakenCount(L);
    if (isa<SCEVCouldNotCompute>(BTC) || !BTC->getType()->isIntegerTy())
      continue;
    if (auto *C = dyn_cast<SCEVConstant>(BTC); C && C->getAPInt().getActiveBits() > 28)
      continue;
    SCEVExpander Exp(SE, "tape.trip");
    if (!Exp.isSafeToExpandAt(BTC, Pre->getTerminator()))
      continue;
    Value *N = Exp.expandCodeFor(BTC, BTC->getType(), Pre->getTerminator());
    IRBuilder<> B(Pre->getTerminator());
    Value *Trips = B.CreateAdd(B.CreateZExtOrTrunc(N, B.getInt64Ty()), B.getInt64(1));
    Reservations.push_back({Pre->getTerminator(), B.CreateMul(Trips, B.getInt64(Bytes))});
    Reserved.insert(L);
  }
  SmallPtrSet<BasicBlock *, 16> InReserved;
  for (Loop *L : Reserved)
    for (BasicBlock *BB : L->blocks())
      InReserved.insert(BB);
  // The preheader's own pushes go first: the reservation must see the top after them. Splitting
  // keeps the branch into the loop the same instruction, so it still marks where to reserve.
  for (auto &[BB, Vals] : Pushes)
    emitPushes(E, BB, Tape, Vals, InReserved.count(BB));
  for (auto &[Before, Bytes] : Reservations)
    emitReserve(E, Before, Tape, Bytes);
}

void emitTapePush(Engine &E, Instruction *Before, Value *Tape, Value *V) {
  uint64_t Bytes = tapeSlotSize(E.module().getDataLayout(), V->getType());
  emitReserve(E, Before, Tape, ConstantInt::get(Type::getInt64Ty(V->getContext()), Bytes));
  IRBuilder<> B(Before);
  StructType *TT = E.tapeType();
  Value *TopP = B.CreateStructGEP(TT, Tape, 1);
  Value *Top = B.CreateLoad(B.getInt64Ty(), TopP, "tape.top");
  Value *Base = B.CreateLoad(B.getPtrTy(), B.CreateStructGEP(TT, Tape, 0), "tape.base");
  B.CreateAlignedStore(V, B.CreateGEP(B.getInt8Ty(), Base, Top), Align(8));
  B.CreateStore(B.CreateAdd(Top, B.getInt64(Bytes)), TopP);
}

Value *emitTapePop(Engine &E, IRBuilder<> &B, Value *Tape, Type *T) {
  StructType *TT = E.tapeType();
  Value *TopP = B.CreateStructGEP(TT, Tape, 1);
  Value *Top = B.CreateSub(B.CreateLoad(B.getInt64Ty(), TopP),
                           B.getInt64(tapeSlotSize(E.module().getDataLayout(), T)));
  B.CreateStore(Top, TopP);
  Value *Base = B.CreateLoad(B.getPtrTy(), B.CreateStructGEP(TT, Tape, 0));
  return B.CreateAlignedLoad(T, B.CreateGEP(B.getInt8Ty(), Base, Top), Align(8), "popped");
}

TapeCursor emitTapeCursor(Engine &E, IRBuilder<> &EB, Value *Tape) {
  StructType *TT = E.tapeType();
  TapeCursor Cur;
  Cur.Top = EB.CreateAlloca(EB.getInt64Ty(), nullptr, "tape.top.local");
  Cur.Base = EB.CreateAlloca(EB.getPtrTy(), nullptr, "tape.base.local");
  EB.CreateStore(EB.CreateLoad(EB.getInt64Ty(), EB.CreateStructGEP(TT, Tape, 1)), Cur.Top);
  EB.CreateStore(EB.CreateLoad(EB.getPtrTy(), EB.CreateStructGEP(TT, Tape, 0)), Cur.Base);
  return Cur;
}

Value *emitTapePop(Engine &E, IRBuilder<> &B, const TapeCursor &Cur, Type *T) {
  Value *Top = B.CreateSub(B.CreateLoad(B.getInt64Ty(), Cur.Top), B.getInt64(tapeSlotSize(E.module().getDataLayout(), T)));
  B.CreateStore(Top, Cur.Top);
  Value *Base = B.CreateLoad(B.getPtrTy(), Cur.Base);
  return B.CreateAlignedLoad(T, B.CreateGEP(B.getInt8Ty(), Base, Top), Align(8), "popped");
}

void syncTapeCursor(Engine &E, Function &Rev, Value *Tape, const TapeCursor &Cur) {
  StructType *TT = E.tapeType();
  // The cursor's own reads at the entry are the only other uses the sweep makes of the tape; any
  // other (the tape stored somewhere a call could reach it) puts every call under suspicion.
  bool Escapes = false;
  for (User *U : Tape->users())
    if (!isa<CallBase>(U) && !(isa<GetElementPtrInst>(U) && cast<Instruction>(U)->getParent() == &Rev.getEntryBlock()))
      Escapes = true;
  SmallVector<CallBase *, 8> Calls;
  SmallVector<ReturnInst *, 2> Rets;
  for (Instruction &I : instructions(Rev)) {
    if (auto *R = dyn_cast<ReturnInst>(&I))
      Rets.push_back(R);
    auto *CB = dyn_cast<CallBase>(&I);
    if (CB && (is_contained(CB->args(), Tape) || (Escapes && !isa<IntrinsicInst>(CB))))
      Calls.push_back(CB);
  }
  auto writeBack = [&](Instruction *Before) {
    IRBuilder<> B(Before);
    B.CreateStore(B.CreateLoad(B.getInt64Ty(), Cur.Top), B.CreateStructGEP(TT, Tape, 1));
  };
  for (ReturnInst *R : Rets)
    writeBack(R);
  for (CallBase *CB : Calls) {
    writeBack(CB);
    Instruction *After = CB->getNextNode();
    if (auto *II = dyn_cast<InvokeInst>(CB)) // its normal destination may have other predecessors
      After = &*SplitEdge(II->getParent(), II->getNormalDest())->getFirstInsertionPt();
    IRBuilder<> B(After);
    B.CreateStore(B.CreateLoad(B.getInt64Ty(), B.CreateStructGEP(TT, Tape, 1)), Cur.Top);
    B.CreateStore(B.CreateLoad(B.getPtrTy(), B.CreateStructGEP(TT, Tape, 0)), Cur.Base);
  }
}

} // namespace synthase
