#include "Analysis/FloatFreeMemory.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace synthase {

/// Integers all the way down: no float and no pointer (a pointer could lead to float data).
static bool holdsOnlyIntegers(Type *T) {
  if (T->isIntegerTy())
    return true;
  if (auto *AT = dyn_cast<ArrayType>(T))
    return holdsOnlyIntegers(AT->getElementType());
  if (auto *VT = dyn_cast<VectorType>(T))
    return holdsOnlyIntegers(VT->getElementType());
  if (auto *ST = dyn_cast<StructType>(T))
    return !ST->isOpaque() && all_of(ST->elements(), holdsOnlyIntegers);
  return false;
}

bool pointsToFloatFreeMemory(const Value *P, function_ref<bool(const Value *)> IsVaried) {
  const Value *O = getUnderlyingObject(P, 0);
  Type *T = nullptr;
  if (auto *AI = dyn_cast<AllocaInst>(O))
    T = AI->getAllocatedType();
  else if (auto *GV = dyn_cast<GlobalVariable>(O); GV && GV->hasLocalLinkage())
    T = GV->getValueType(); // other modules could write a non-local global
  if (!T || !holdsOnlyIntegers(T))
    return false;
  // Every way into the object: the addresses derived from it and what is stored through them.
  SmallVector<const Value *, 16> Work{O};
  SmallPtrSet<const Value *, 16> Seen{O};
  while (!Work.empty()) {
    const Value *A = Work.pop_back_val();
    for (const User *U : A->users()) {
      if (isa<GetElementPtrInst>(U) || isa<BitCastInst>(U) || isa<AddrSpaceCastInst>(U) ||
          isa<PHINode>(U) || isa<SelectInst>(U)) {
        if (Seen.insert(U).second)
          Work.push_back(U);
      } else if (auto *SI = dyn_cast<StoreInst>(U)) {
        // The address itself escaping into memory, or a value with a derivative stored into it.
        if (SI->getValueOperand() == A || IsVaried(SI->getValueOperand()) ||
            !holdsOnlyIntegers(SI->getValueOperand()->getType()))
          return false;
      } else if (auto *MT = dyn_cast<MemTransferInst>(U)) {
        if (MT->getRawDest() == A)
          return false; // bytes copied in from elsewhere may be a float's
      } else if (auto *CB = dyn_cast<CallBase>(U)) {
        // A callee with a body could store a float's bytes there and then be differentiated
        // as if they were integers; bodiless callees are what this test is for.
        const Function *G = CB->getCalledFunction();
        if (G && !G->isDeclaration())
          return false;
      } else if (!isa<LoadInst>(U) && !isa<ICmpInst>(U) && !isa<PtrToIntInst>(U)) {
        return false;
      }
    }
  }
  return true;
}

} // namespace synthase
