#include "Reverse/Tape.h"
#include "llvm/IR/Instructions.h"
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
  Instruction *Then = SplitBlockAndInsertIfThen(Full, Term, false);
  IRBuilder<> GB(Then);
  GB.CreateCall(E.tapeGrowFunction(), {Tape, GB.getInt64(Total)});
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
