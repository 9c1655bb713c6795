#include "Analysis/DefinedLanes.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace synthase {

/// C with its undefined floating-point elements replaced by zeros, or null if it has none.
static Constant *withZeroLanes(Constant *C) {
  auto *VT = dyn_cast<FixedVectorType>(C->getType());
  if (!VT || !VT->getElementType()->isFloatingPointTy() || !C->containsUndefOrPoisonElement())
    return nullptr;
  SmallVector<Constant *, 8> Elts;
  for (unsigned i = 0; i < VT->getNumElements(); ++i) {
    Constant *E = C->getAggregateElement(i);
    Elts.push_back(!E || isa<UndefValue>(E) ? Constant::getNullValue(VT->getElementType()) : E);
  }
  return ConstantVector::get(Elts);
}

void defineVectorLanes(Function &F) {
  for (Instruction &I : instructions(F)) {
    if (auto *SV = dyn_cast<ShuffleVectorInst>(&I)) {
      SmallVector<int, 16> Mask(SV->getShuffleMask());
      auto *InTy = cast<FixedVectorType>(SV->getOperand(0)->getType());
      int N = InTy->getNumElements();
      // A defined source lane: one the mask already reads, else lane 0 of an operand that is
      // not undefined as a whole.
      int Pick = -1;
      for (int M : Mask)
        if (M >= 0) {
          Pick = M;
          break;
        }
      if (Pick < 0)
        Pick = isa<UndefValue>(SV->getOperand(0)) ? N : 0;
      bool Changed = false;
      for (int &M : Mask)
        if (M < 0) {
          M = Pick;
          Changed = true;
        }
      if (Changed && SV->getType()->getScalarType()->isFloatingPointTy())
        SV->setShuffleMask(Mask);
    }
    // Undefined lanes in constant operands: `insertelement poison, x, 0`, `<0.5, poison>`.
    for (Use &U : I.operands())
      if (auto *C = dyn_cast<Constant>(U.get()))
        if (Constant *Z = withZeroLanes(C))
          U.set(Z);
  }
}

} // namespace synthase
