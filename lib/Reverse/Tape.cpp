#include "Reverse/Tape.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace llvm;

namespace synthase {

uint64_t tapeSlotSize(const DataLayout &DL, Type *T) {
  return alignTo(DL.getTypeAllocSize(T).getFixedValue(), 8);
}

void emitTapePushes(Engine &E, BasicBlock *BB, Value *Tape, ArrayRef<Value *> Vals) {
  if (Vals.empty())
    return;
  const DataLayout &DL = E.module().getDataLayout();
  StructType *TT = E.tapeType();
  uint64_t Total = 0;
  for (Value *V : Vals)
    Total += tapeSlotSize(DL, V->getType());
  Instruction *Term = BB->getTerminator();
  IRBuilder<> B(Term);
  Value *TopP = B.CreateStructGEP(TT, Tape, 1), *CapP = B.CreateStructGEP(TT, Tape, 2);
  Value *Top = B.CreateLoad(B.getInt64Ty(), TopP, "tape.top");
  Value *NewTop = B.CreateAdd(Top, B.getInt64(Total));
  Value *Full = B.CreateICmpUGT(NewTop, B.CreateLoad(B.getInt64Ty(), CapP));
  // Growth is inline (a realloc on the cold edge) rather than a call: once the augmented and
  // reverse sweeps are inlined into their caller, the tape's fields then stay in registers.
  Instruction *Then = SplitBlockAndInsertIfThen(Full, Term, false,
                                                MDBuilder(BB->getContext()).createUnlikelyBranchWeights());
  IRBuilder<> GB(Then);
  Value *Cap = GB.CreateLoad(GB.getInt64Ty(), CapP);
  Value *Dbl = GB.CreateShl(Cap, 1);
  Value *NewCap = GB.CreateSelect(GB.CreateICmpUGT(Dbl, NewTop), Dbl, NewTop);
  NewCap = GB.CreateSelect(GB.CreateICmpULT(NewCap, GB.getInt64(1 << 16)), GB.getInt64(1 << 16), NewCap);
  FunctionCallee Realloc = E.module().getOrInsertFunction("realloc", GB.getPtrTy(), GB.getPtrTy(), GB.getInt64Ty());
  Value *BaseP0 = GB.CreateStructGEP(TT, Tape, 0);
  GB.CreateStore(GB.CreateCall(Realloc, {GB.CreateLoad(GB.getPtrTy(), BaseP0), NewCap}), BaseP0);
  GB.CreateStore(NewCap, CapP);
  B.SetInsertPoint(Term);
  Value *Base = B.CreateLoad(B.getPtrTy(), B.CreateStructGEP(TT, Tape, 0), "tape.base");
  uint64_t Off = 0;
  for (Value *V : Vals) {
    Value *P = B.CreateGEP(B.getInt8Ty(), Base, B.CreateAdd(Top, B.getInt64(Off)));
    B.CreateAlignedStore(V, P, Align(8));
    Off += tapeSlotSize(DL, V->getType());
  }
  B.CreateStore(NewTop, TopP);
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

} // namespace synthase
