// Integers that carry float bits: rustc and optimized C move doubles as i64 (sorts, enum
// payloads, memcpy of whole elements). Which integer moves are float data, and when integer-looking
// bytes really hold no derivative data.
#include "Analysis/MemoryLayout.h"
#include "Analysis/TypedCopies.h"
#include "Analysis/UnshadowedMemory.h"
#include "Analysis/UserAnnotations.h"
#include "Engine/Engine.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Operator.h"

using namespace llvm;

namespace synthase {

/// Only inactive library code sees the local object Base besides plain accesses: the functions
/// with a body it is handed to are inactive (a std::string's members from -O1 on), and the bytes
/// copied into it come from what such a function returned (another string's characters).
static bool onlyLibraryCodeFills(const Value *Base) {
  SmallVector<const Value *, 8> Work{Base};
  SmallPtrSet<const Value *, 16> Seen{Base};
  while (!Work.empty()) {
    const Value *P = Work.pop_back_val();
    for (const Use &U : P->uses()) {
      const User *Us = U.getUser();
      if (isa<GetElementPtrInst>(Us) || isa<BitCastInst>(Us)) {
        if (Seen.insert(Us).second)
          Work.push_back(Us);
      } else if (auto *MT = dyn_cast<MemTransferInst>(Us)) {
        if (MT->getRawDest() != U.get())
          continue;
        const Value *From = getUnderlyingObject(MT->getSource(), 12);
        auto *G = dyn_cast<GlobalVariable>(From);
        auto *CB = dyn_cast<CallBase>(From);
        if (!(G && G->isConstant() && !holdsFloatsOrPointers(G->getValueType())) && !(CB && isInactiveCallee(CB->getCalledFunction())))
          return false;
      } else if (auto *CB = dyn_cast<CallBase>(Us); CB && !isa<IntrinsicInst>(CB)) {
        const Function *G = CB->getCalledFunction();
        if (!G || (!G->isDeclaration() && !isInactiveFunction(G)))
          return false;
      }
    }
  }
  return true;
}

namespace {
enum class LoadSearch { Found, NotFound, GaveUp };
} // namespace

/// Looks for a load that V's bits come from, through phis, selects and freezes (integers moved
/// through a merge), until Match accepts one; GaveUp when the walk ran out of budget first.
static LoadSearch findMovedLoad(const Value *V, function_ref<bool(const LoadInst *)> Match) {
  bool Truncated = false;
  const Value *Found = findInIntegerSources(V, [&](const Value *X) -> std::optional<bool> {
    if (auto *L = dyn_cast<LoadInst>(X))
      return Match(L);
    if (isa<PHINode>(X) || isa<SelectInst>(X) || isa<FreezeInst>(X))
      return std::nullopt;
    return false; // arithmetic makes new bits, not moved ones
  }, &Truncated);
  return Found ? LoadSearch::Found : Truncated ? LoadSearch::GaveUp : LoadSearch::NotFound;
}

/// Some integer stored into the local object Base may have been loaded (through phis, selects
/// and freezes) from memory that holds floats: Rust's sorts move `f64`s as `i64` into a stack
/// scratch buffer and copy it back with a run-time length, so the integers are float bits.
/// Where the search runs out of budget the answer is yes: the bytes are then treated as data,
/// which at worst costs a refusal, never a dropped derivative.
static bool mayReceiveFloatBits(const DataLayout &DL, const Value *Base) {
  SmallVector<const Value *, 16> Ptrs{Base};
  SmallPtrSet<const Value *, 32> SeenPtr{Base};
  auto FromFloats = [&](const LoadInst *L) {
    if (movesNoDerivativeData(L))
      return false;
    // What the move itself is taken for: C's `memcpy(&u, &x[i], 8)` from a double argument the
    // function reads no other way is a double moved as i64, in reverse as in forward mode.
    if (floatTypeOfIntMove(DL, L))
      return true;
    // The load's address may merge pointers into the source (a merge's two cursors): the
    // objects behind it tell what the bytes are.
    SmallVector<const Value *, 4> Objs;
    getUnderlyingObjects(L->getPointerOperand(), Objs);
    return any_of(Objs, [&](const Value *O) { return O != Base && !accessLayout(DL, O).Floats.empty(); });
  };
  while (!Ptrs.empty()) {
    if (SeenPtr.size() > 512)
      return true;
    const Value *P = Ptrs.pop_back_val();
    for (const User *U : P->users()) {
      if (isa<GetElementPtrInst>(U) || isa<BitCastInst>(U) || isa<PHINode>(U) || isa<SelectInst>(U)) {
        if (SeenPtr.insert(U).second)
          Ptrs.push_back(U);
        continue;
      }
      auto *SI = dyn_cast<StoreInst>(U);
      if (!SI || SI->getPointerOperand() != P || !SI->getValueOperand()->getType()->isIntOrIntVectorTy())
        continue;
      if (findMovedLoad(SI->getValueOperand(), FromFloats) != LoadSearch::NotFound)
        return true;
    }
  }
  return false;
}

bool bytesHoldNoData(const DataLayout &DL, const Value *Ptr) {
  APInt Off(DL.getIndexTypeSizeInBits(Ptr->getType()), 0);
  const Value *Base = Ptr->stripAndAccumulateConstantOffsets(DL, Off, /*AllowNonInbounds=*/true);
  if (!isa<AllocaInst>(Base) || getUnderlyingObject(Ptr, 12) != Base)
    return false;
  MemoryLayout L = accessLayout(DL, Ptr);
  if (!L.Floats.empty() || L.PointerAtUnknownOffset)
    return false;
  if ((L.SeenInCallee || L.CopiedInto) && !onlyLibraryCodeFills(Base))
    return false;
  for (auto &[At, T] : L.Fields)
    if (T->isPointerTy() && At + (int64_t)DL.getTypeStoreSize(T) > 0)
      return false;
  return !mayReceiveFloatBits(DL, Base);
}

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

bool loadsAtomicCounter(const LoadInst *L) {
  return L->isAtomic() && L->getType()->isIntegerTy() && none_of(L->users(), [](const User *U) {
           return isa<StoreInst>(U) || isa<BitCastInst>(U) || isa<CallBase>(U) || isa<IntToPtrInst>(U);
         });
}

Type *floatTypeOfIntMove(const DataLayout &DL, const LoadInst *L) {
  Type *IT = L->getType();
  if (!IT->isIntOrIntVectorTy() || movesNoDerivativeData(L) || loadsPointerBits(L))
    return nullptr; // a pointer's bits: its shadow moves in the forward sweep
  if (loadsAtomicCounter(L))
    return nullptr;
  MemoryLayout Lay = moveLayout(DL, L);
  uint64_t Bits = DL.getTypeSizeInBits(IT).getFixedValue();
  Type *FT = nullptr;
  if (auto K = Lay.kindsWithin(DL, DL.getTypeStoreSize(IT))) {
    // The moved bytes' own fields decide: a pointer, integers, or one float type.
    if (K->Pointers || K->Floats.size() != 1)
      return nullptr;
    FT = *K->Floats.begin();
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

bool floatBitsKnown(const DataLayout &DL, const Value *V) {
  return findMovedLoad(V, [&](const LoadInst *L) {
           auto K = moveLayout(DL, L).kindsWithin(DL, DL.getTypeStoreSize(L->getType()));
           if (K && !K->Floats.empty() && !K->Pointers)
             return true;
           // An element of a typed array (`memcpy(&u, &a[i], 8)` on a double array).
           APInt Off(DL.getIndexTypeSizeInBits(L->getPointerOperand()->getType()), 0);
           auto *G = dyn_cast<GEPOperator>(L->getPointerOperand()->stripAndAccumulateConstantOffsets(DL, Off, true));
           Type *E = G && G->getNumIndices() == 1 ? G->getSourceElementType() : nullptr;
           return E && E->isFloatingPointTy() && Off.isZero() && DL.getTypeStoreSize(E) == DL.getTypeStoreSize(L->getType());
         }) == LoadSearch::Found;
}

} // namespace synthase

