// The tape's fields in locals. Each push and pop reads and writes the tape's top (and reads its
// base) through the tape pointer the caller passes. Stores of taped values through the base could
// alias that struct as far as LLVM knows, so every block reloaded the base and stored the top: three
// memory operations per push or pop block, and as many instructions for every later pass and the
// code generator to chew on (a third of a large gradient's pushes). Here a generated function
// keeps base, top and capacity in locals that SROA turns into SSA values, and writes them back only
// where someone else looks: before a call that takes the tape (a callee's sweep pushes or pops
// too) and before returning. Base and capacity change only when the tape grows, and are stored to
// the struct there as well, so a cleanup that runs while unwinding gives the right buffer back.
#include "Reverse/Tape.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace llvm;

namespace synthase {

bool promoteTapeFields(Function &F, Value *Tape) {
  const DataLayout &DL = F.getParent()->getDataLayout();
  LLVMContext &C = F.getContext();
  Type *FieldTy[3] = {PointerType::getUnqual(C), Type::getInt64Ty(C), Type::getInt64Ty(C)};
  SmallVector<std::pair<Instruction *, unsigned>, 32> Accesses; // load or store, field
  SmallSetVector<CallBase *, 8> Calls;
  auto Access = [&](User *U, Value *Ptr, unsigned Field) {
    if (auto *L = dyn_cast<LoadInst>(U); L && L->isSimple() && L->getType() == FieldTy[Field]) {
      Accesses.push_back({L, Field});
      return true;
    }
    if (auto *S = dyn_cast<StoreInst>(U); S && S->isSimple() && S->getPointerOperand() == Ptr &&
                                           S->getValueOperand()->getType() == FieldTy[Field]) {
      Accesses.push_back({S, Field});
      return true;
    }
    return false;
  };
  for (User *U : Tape->users()) {
    if (auto *CB = dyn_cast<CallBase>(U)) {
      if (CB->getCalledOperand() == Tape)
        return false;
      Calls.insert(CB);
      continue;
    }
    if (Access(U, Tape, 0))
      continue;
    auto *G = dyn_cast<GetElementPtrInst>(U);
    APInt Off(64, 0);
    if (!G || G->getPointerOperand() != Tape || !G->accumulateConstantOffset(DL, Off) ||
        Off.getZExtValue() % 8 || Off.getZExtValue() > 16)
      return false; // the tape's address goes somewhere else: leave it all as it is
    for (User *GU : G->users())
      if (!Access(GU, G, Off.getZExtValue() / 8))
        return false;
  }
  if (Accesses.empty())
    return false;
  BasicBlock &Entry = F.getEntryBlock();
  IRBuilder<> B(&Entry, Entry.getFirstInsertionPt());
  Type *TT = StructType::get(C, ArrayRef<Type *>(FieldTy));
  AllocaInst *Local[3];
  Value *FieldPtr[3];
  for (unsigned K = 0; K < 3; ++K)
    Local[K] = B.CreateAlloca(FieldTy[K], nullptr, K == 0 ? "tape.base.local" : K == 1 ? "tape.top.local" : "tape.cap.local");
  auto Reload = [&](IRBuilder<> &At) {
    for (unsigned K = 0; K < 3; ++K)
      At.CreateStore(At.CreateLoad(FieldTy[K], At.CreateStructGEP(TT, Tape, K)), Local[K]);
  };
  Reload(B);
  for (unsigned K = 0; K < 3; ++K)
    FieldPtr[K] = B.CreateStructGEP(TT, Tape, K);
  for (auto &[I, K] : Accesses) {
    IRBuilder<> At(I);
    if (auto *L = dyn_cast<LoadInst>(I)) {
      Value *R = At.CreateLoad(FieldTy[K], Local[K]);
      R->takeName(L);
      L->replaceAllUsesWith(R);
      L->eraseFromParent();
      continue;
    }
    auto *S = cast<StoreInst>(I);
    At.CreateStore(S->getValueOperand(), Local[K]);
    if (K == 1) // the top goes back to the struct only where someone else reads it
      S->eraseFromParent();
  }
  auto WriteTop = [&](Instruction *Before) {
    IRBuilder<> At(Before);
    At.CreateStore(At.CreateLoad(FieldTy[1], Local[1]), FieldPtr[1]);
  };
  for (CallBase *CB : Calls) {
    WriteTop(CB);
    if (auto *Inv = dyn_cast<InvokeInst>(CB)) {
      BasicBlock *Normal = Inv->getNormalDest();
      if (!Normal->getSinglePredecessor())
        Normal = SplitEdge(Inv->getParent(), Normal);
      IRBuilder<> At(&*Normal->getFirstInsertionPt());
      Reload(At);
    } else {
      IRBuilder<> At(CB->getNextNode());
      Reload(At);
    }
  }
  for (BasicBlock &BB : F)
    if (auto *R = dyn_cast<ReturnInst>(BB.getTerminator()))
      WriteTop(R);
  // One chain of top (or base, or capacity) values through the whole function makes LLVM's loop
  // passes quadratic: each loop rotated or unrolled has ScalarEvolution forget every integer and
  // pointer computed from its header's phis, which then means every later push. Entering a loop,
  // the fields go through the struct and come back by volatile loads, which nothing folds: each
  // chain ends at the next loop. That is two memory operations per field per loop entry, where
  // every push or pop block had three.
  DominatorTree DT(F);
  LoopInfo LI(DT);
  for (Loop *L : LI.getLoopsInPreorder())
    for (BasicBlock *P : predecessors(L->getHeader()))
      if (!L->contains(P)) {
        IRBuilder<> At(P->getTerminator());
        WriteTop(P->getTerminator());
        for (unsigned K = 0; K < 3; ++K)
          At.CreateStore(At.CreateLoad(FieldTy[K], FieldPtr[K], /*isVolatile=*/true), Local[K]);
      }
  return true;
}

} // namespace synthase
