#include "Engine/ShadowAlignment.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace synthase {

/// The alignment a move of T needs: its scalar elements' (a vector's lanes, an array's elements).
static Align elementAlign(const DataLayout &DL, Type *T) {
  while (auto *AT = dyn_cast<ArrayType>(T))
    T = AT->getElementType();
  return DL.getABITypeAlign(T->getScalarType());
}

void relaxVectorAlignment(Function &F) {
  const DataLayout &DL = F.getDataLayout();
  for (Instruction &I : instructions(F)) {
    if (auto *LI = dyn_cast<LoadInst>(&I)) {
      if (LI->getType()->isVectorTy())
        LI->setAlignment(std::min(LI->getAlign(), elementAlign(DL, LI->getType())));
    } else if (auto *SI = dyn_cast<StoreInst>(&I)) {
      if (Type *T = SI->getValueOperand()->getType(); T->isVectorTy())
        SI->setAlignment(std::min(SI->getAlign(), elementAlign(DL, T)));
    } else if (auto *MT = dyn_cast<MemTransferInst>(&I)) {
      // A constant-size copy is expanded into vector moves at the alignment it claims.
      MT->setDestAlignment(std::min(MT->getDestAlign().valueOrOne(), Align(8)));
      MT->setSourceAlignment(std::min(MT->getSourceAlign().valueOrOne(), Align(8)));
    } else if (auto *MS = dyn_cast<MemSetInst>(&I)) {
      MS->setDestAlignment(std::min(MS->getDestAlign().valueOrOne(), Align(8)));
    }
  }
}

} // namespace synthase
