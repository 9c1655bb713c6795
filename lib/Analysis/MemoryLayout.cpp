#include "Analysis/MemoryLayout.h"
#include "Analysis/TypedCopies.h"
#include "Rules/Allocators.h"
#include "Rules/Rules.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Operator.h"

using namespace llvm;

namespace synthase {

void MemoryLayout::merge(const MemoryLayout &O) {
  for (auto &[Off, T] : O.Fields)
    Fields.emplace(Off, T);
  Complete &= O.Complete;
  Pointers |= O.Pointers;
  Floats.insert(O.Floats.begin(), O.Floats.end());
  Typed.insert(Typed.end(), O.Typed.begin(), O.Typed.end());
}

bool MemoryLayout::knownWithin(uint64_t Len) const {
  if (Complete)
    return true;
  for (auto &[Off, Size] : Typed)
    if (Off <= 0 && Off + (int64_t)Size >= (int64_t)Len)
      return true;
  return false;
}

/// A type the IR states for the memory at Off (struct or array: a scalar type says little).
static void hint(const DataLayout &DL, MemoryLayout &L, Type *T, std::optional<int64_t> Off);

bool MemoryLayout::floatsWithin(uint64_t Len) const {
  for (auto &[Off, T] : Fields)
    if (T->isFloatingPointTy() && Off >= 0 && (uint64_t)Off < Len)
      return true;
  return false;
}

Type *MemoryLayout::floatFieldsOverlapping(const DataLayout &DL, uint64_t Len, bool &Mixed) const {
  Type *One = nullptr;
  Mixed = false;
  for (auto &[Off, T] : Fields) {
    if (!T->isFloatingPointTy())
      continue;
    int64_t End = Off + (int64_t)DL.getTypeStoreSize(T);
    if (End <= 0 || Off >= (int64_t)Len)
      continue;
    if (Off < 0 || End > (int64_t)Len || (One && One != T))
      Mixed = true;
    One = T;
  }
  return One;
}

/// Records the scalars of an access of type T at Off (unknown offset when Off is empty).
static void note(const DataLayout &DL, MemoryLayout &L, Type *T, std::optional<int64_t> Off) {
  if (auto *ST = dyn_cast<StructType>(T)) {
    const StructLayout *SL = DL.getStructLayout(ST);
    for (unsigned i = 0; i < ST->getNumElements(); ++i)
      note(DL, L, ST->getElementType(i),
           Off ? std::optional<int64_t>(*Off + (int64_t)SL->getElementOffset(i)) : std::nullopt);
    return;
  }
  if (auto *AT = dyn_cast<ArrayType>(T)) {
    uint64_t ES = DL.getTypeAllocSize(AT->getElementType());
    for (uint64_t i = 0; i < AT->getNumElements() && i < 64; ++i)
      note(DL, L, AT->getElementType(), Off ? std::optional<int64_t>(*Off + (int64_t)(i * ES)) : std::nullopt);
    return;
  }
  if (auto *VT = dyn_cast<FixedVectorType>(T)) {
    uint64_t ES = DL.getTypeAllocSize(VT->getElementType());
    for (unsigned i = 0; i < VT->getNumElements(); ++i)
      note(DL, L, VT->getElementType(), Off ? std::optional<int64_t>(*Off + (int64_t)(i * ES)) : std::nullopt);
    return;
  }
  bool IsFloat = T->isFloatingPointTy(), IsPtr = T->isPointerTy();
  if (!IsFloat && !IsPtr)
    return;
  if (IsFloat)
    L.Floats.insert(T);
  L.Pointers |= IsPtr;
  if (Off)
    L.Fields.emplace(*Off, T);
}

static void hint(const DataLayout &DL, MemoryLayout &L, Type *T, std::optional<int64_t> Off) {
  if (!Off || !(T->isStructTy() || T->isArrayTy()) || !T->isSized())
    return;
  note(DL, L, T, Off);
  L.Typed.push_back({*Off, DL.getTypeAllocSize(T).getFixedValue()});
}

MemoryLayout accessLayout(const DataLayout &DL, const Value *Ptr) {
  MemoryLayout L;
  APInt PtrOff(DL.getIndexTypeSizeInBits(Ptr->getType()), 0);
  const Value *Base = Ptr->stripAndAccumulateConstantOffsets(DL, PtrOff, /*AllowNonInbounds=*/true);
  // Walk every pointer derived from the object, with its offset relative to Ptr when constant
  // (Ptr at a variable offset inside the object: types are still seen, offsets are not).
  const Value *Obj = getUnderlyingObject(Ptr, 12);
  std::optional<int64_t> Start = -PtrOff.getSExtValue();
  if (Obj != Base) {
    Base = Obj;
    Start = std::nullopt;
    L.Complete = false;
  }
  SmallVector<std::pair<const Value *, std::optional<int64_t>>, 16> Work{{Base, Start}};
  // An element of an array of structs at a run-time index (`&a[i]`, struct assignment in a loop):
  // the GEP's type states the layout of the bytes at Ptr, though their offset in the object is
  // not known.
  if (auto *G = dyn_cast<GEPOperator>(Ptr); G && G->getNumIndices() == 1 && G->getSourceElementType()->isStructTy())
    hint(DL, L, G->getSourceElementType(), 0);
  if (auto *AI = dyn_cast<AllocaInst>(Base))
    hint(DL, L, AI->getAllocatedType(), Start);
  else if (auto *GV = dyn_cast<GlobalVariable>(Base))
    hint(DL, L, GV->getValueType(), Start);
  SmallPtrSet<const Value *, 32> Seen{Base};
  while (!Work.empty() && Seen.size() < 1024) {
    auto [V, Off] = Work.pop_back_val();
    for (const Use &U : V->uses()) {
      auto *I = dyn_cast<Instruction>(U.getUser());
      if (!I)
        continue;
      if (auto *G = dyn_cast<GEPOperator>(I)) {
        if (G->getPointerOperand() == V)
          hint(DL, L, G->getSourceElementType(), Off);
        APInt C(DL.getIndexTypeSizeInBits(G->getType()), 0);
        std::optional<int64_t> NO;
        if (Off && G->accumulateConstantOffset(DL, C))
          NO = *Off + C.getSExtValue();
        else
          L.Complete = false;
        if (Seen.insert(I).second)
          Work.push_back({I, NO});
      } else if (isa<CastInst>(I) && I->getType()->isPointerTy()) {
        if (Seen.insert(I).second)
          Work.push_back({I, Off});
      } else if (isa<PHINode>(I) || isa<SelectInst>(I)) {
        L.Complete = false; // the merged pointer may sit at another offset
        if (Seen.insert(I).second)
          Work.push_back({I, std::nullopt});
      } else if (auto *LI = dyn_cast<LoadInst>(I)) {
        note(DL, L, LI->getType(), Off);
      } else if (auto *SI = dyn_cast<StoreInst>(I)) {
        if (SI->getPointerOperand() == U.get())
          note(DL, L, SI->getValueOperand()->getType(), Off);
      } else if (auto *CB = dyn_cast<CallBase>(I)) {
        if (!isa<MemIntrinsic>(I) && !isa<IntrinsicInst>(I) && !isAllocator(CB->getCalledFunction()))
          L.Complete = false; // a callee may access it in ways not seen here
      }
    }
  }
  return L;
}

} // namespace synthase

namespace synthase {

MemoryLayout moveLayout(const DataLayout &DL, const LoadInst *L) {
  MemoryLayout Lay = accessLayout(DL, L->getPointerOperand());
  SmallVector<const Value *, 8> Work{L};
  SmallPtrSet<const Value *, 16> Seen{L};
  while (!Work.empty()) {
    const Value *V = Work.pop_back_val();
    for (const User *U : V->users()) {
      if (auto *SI = dyn_cast<StoreInst>(U)) {
        if (SI->getValueOperand() == V)
          Lay.merge(accessLayout(DL, SI->getPointerOperand()));
      } else if ((isa<PHINode>(U) || isa<SelectInst>(U) || isa<FreezeInst>(U)) && Seen.insert(U).second) {
        Work.push_back(U);
      }
    }
  }
  return Lay;
}

Type *floatTypeOfIntMove(const DataLayout &DL, const LoadInst *L) {
  Type *IT = L->getType();
  if (!IT->isIntOrIntVectorTy() || movesNoDerivativeData(L))
    return nullptr;
  MemoryLayout Lay = moveLayout(DL, L);
  uint64_t Bits = DL.getTypeSizeInBits(IT).getFixedValue();
  Type *FT = nullptr;
  if (Lay.Floats.size() > 1 && Lay.knownWithin(Bits / 8)) {
    // A struct {double; float;}: the fields inside the moved bytes decide, and padding or an
    // integer between them is not float data at all.
    bool Mixed;
    FT = Lay.floatFieldsOverlapping(DL, Bits / 8, Mixed);
    if (Mixed || !FT)
      return nullptr;
  } else if (Lay.Floats.size() == 1)
    FT = *Lay.Floats.begin();
  else if (Lay.Floats.empty() && Lay.Pointers)
    return nullptr; // pointers moved as integers: their shadows move in the forward sweep
  else if (Lay.Floats.empty())
    FT = Bits % 64 == 0 ? Type::getDoubleTy(IT->getContext())
         : Bits % 32 == 0 ? Type::getFloatTy(IT->getContext())
                          : nullptr;
  if (!FT)
    return nullptr;
  uint64_t FB = DL.getTypeSizeInBits(FT).getFixedValue();
  if (Bits % FB != 0 || FB != DL.getTypeAllocSizeInBits(FT))
    return nullptr; // e.g. doubles moved in bytes, or x86_fp80 in i64 halves
  return Bits == FB ? FT : (Type *)FixedVectorType::get(FT, Bits / FB);
}

} // namespace synthase
