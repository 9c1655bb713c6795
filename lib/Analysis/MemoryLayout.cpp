#include "Analysis/MemoryLayout.h"
#include "Analysis/TypedCopies.h"
#include "Analysis/Preprocess.h"
#include "Analysis/UnshadowedMemory.h"
#include "Analysis/UserAnnotations.h"
#include "Engine/Engine.h"
#include "Rules/Allocators.h"
#include "Rules/Rules.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/AliasAnalysis.h"
#include "llvm/Analysis/CaptureTracking.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"

using namespace llvm;

namespace synthase {

void MemoryLayout::addField(int64_t Off, Type *T) {
  auto [It, New] = Fields.emplace(Off, T);
  if (!New && It->second != T)
    Alternates.emplace(Off, T);
}

bool MemoryLayout::ambiguousWithin(const DataLayout &DL, uint64_t Len) const {
  for (auto &[Off, T] : Alternates) {
    int64_t Size = std::max(DL.getTypeStoreSize(T).getFixedValue(), DL.getTypeStoreSize(Fields.at(Off)).getFixedValue());
    if (Off < (int64_t)Len && Off + Size > 0)
      return true;
  }
  return false;
}

/// Whether the bytes of T are all i8 (a byte buffer says nothing about what it holds).
static bool onlyBytes(Type *T) {
  if (auto *AT = dyn_cast<ArrayType>(T))
    return onlyBytes(AT->getElementType());
  if (auto *ST = dyn_cast<StructType>(T))
    return all_of(ST->elements(), onlyBytes);
  return T->isIntegerTy(8);
}

void MemoryLayout::merge(const MemoryLayout &O) {
  for (auto &[Off, T] : O.Fields)
    addField(Off, T);
  for (auto &[Off, T] : O.Alternates)
    addField(Off, T);
  Complete &= O.Complete;
  Pointers |= O.Pointers;
  AddressIntegers |= O.AddressIntegers;
  PointerAtUnknownOffset |= O.PointerAtUnknownOffset;
  SeenInCallee |= O.SeenInCallee;
  FromCallees |= O.FromCallees;
  HiddenUse |= O.HiddenUse;
  CopiedInto |= O.CopiedInto;
  Floats.insert(O.Floats.begin(), O.Floats.end());
  for (auto &[Off, T] : O.Arrays)
    addArray(Off, T);
  Typed.insert(Typed.end(), O.Typed.begin(), O.Typed.end());
  for (auto &[Off, Size] : O.Ints)
    Ints.emplace(Off, Size);
}

void MemoryLayout::addArray(int64_t Off, Type *T) {
  auto [It, New] = Arrays.emplace(Off, T);
  if (!New && It->second != T)
    It->second = nullptr;
}

Type *MemoryLayout::arrayElementAtStart(const DataLayout &DL) const {
  auto It = Arrays.upper_bound(0);
  if (It == Arrays.begin())
    return nullptr;
  auto [Start, T] = *std::prev(It);
  if (!T || -Start % (int64_t)DL.getTypeAllocSize(T) != 0)
    return nullptr;
  for (auto F = Fields.lower_bound(Start); F != Fields.end() && F->first <= 0; ++F)
    if (!T->isSingleValueType() || F->second != T)
      return nullptr;
  return T;
}

bool MemoryLayout::knownWithin(uint64_t Len) const {
  if (FromCallees)
    return false; // a callee may see one member of a union where the caller keeps another
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

std::optional<MemoryLayout::Kinds> MemoryLayout::kindsWithin(const DataLayout &DL, uint64_t Len) const {
  Kinds K;
  bool Any = false;
  for (auto &[Off, T] : Fields)
    if (Off < (int64_t)Len && Off + (int64_t)DL.getTypeStoreSize(T) > 0) {
      Any = true;
      if (T->isFloatingPointTy())
        K.Floats.insert(T);
      K.Pointers |= T->isPointerTy();
    }
  for (auto &[Off, T] : Alternates)
    if (Off < (int64_t)Len && Off + (int64_t)DL.getTypeStoreSize(T) > 0) {
      if (T->isFloatingPointTy())
        K.Floats.insert(T);
      K.Pointers |= T->isPointerTy();
    }
  if (Any)
    return K;
  // No float or pointer there: integers if stated integer fields cover every byte.
  int64_t Covered = 0;
  for (auto &[Off, Size] : Ints)
    if (Off <= Covered && Off + (int64_t)Size > Covered)
      Covered = Off + Size;
  if (Covered >= (int64_t)Len)
    return K;
  // Every access is listed, none overlaps the bytes, and they are too few to hold any float the
  // object holds: an integer field (a node's `int id` next to its `double`), not a float moved
  // as an integer (a double moved as i64 may have no access of its own).
  if (knownWithin(Len) && !Floats.empty() && all_of(Floats, [&](Type *T) {
        return DL.getTypeStoreSize(T).getFixedValue() > Len;
      }))
    return K;
  return std::nullopt;
}

/// Records the scalars of an access of type T at Off (unknown offset when Off is empty). Stated:
/// T is a type the IR states for the memory (not an access), so its integer fields are known to
/// hold integers; byte arrays are storage for anything (Rust's allocas, aligned_storage).
static void note(const DataLayout &DL, MemoryLayout &L, Type *T, std::optional<int64_t> Off, bool Stated = false) {
  if (auto *ST = dyn_cast<StructType>(T)) {
    const StructLayout *SL = DL.getStructLayout(ST);
    for (unsigned i = 0; i < ST->getNumElements(); ++i)
      note(DL, L, ST->getElementType(i),
           Off ? std::optional<int64_t>(*Off + (int64_t)SL->getElementOffset(i)) : std::nullopt, Stated);
    return;
  }
  if (auto *AT = dyn_cast<ArrayType>(T)) {
    uint64_t ES = DL.getTypeAllocSize(AT->getElementType());
    bool ElemStated = Stated && !AT->getElementType()->isIntegerTy(8);
    for (uint64_t i = 0; i < AT->getNumElements() && i < 64; ++i)
      note(DL, L, AT->getElementType(), Off ? std::optional<int64_t>(*Off + (int64_t)(i * ES)) : std::nullopt,
           ElemStated);
    return;
  }
  if (auto *VT = dyn_cast<FixedVectorType>(T)) {
    uint64_t ES = DL.getTypeAllocSize(VT->getElementType());
    for (unsigned i = 0; i < VT->getNumElements(); ++i)
      note(DL, L, VT->getElementType(), Off ? std::optional<int64_t>(*Off + (int64_t)(i * ES)) : std::nullopt);
    return;
  }
  bool IsFloat = T->isFloatingPointTy(), IsPtr = T->isPointerTy();
  if (Stated && Off && T->isIntegerTy())
    L.Ints.emplace(*Off, DL.getTypeStoreSize(T));
  if (!IsFloat && !IsPtr)
    return;
  if (IsFloat)
    L.Floats.insert(T);
  L.Pointers |= IsPtr;
  L.PointerAtUnknownOffset |= IsPtr && !Off;
  if (Off)
    L.addField(*Off, T);
}

bool holdsFloatsOrPointers(Type *T) {
  if (auto *ST = dyn_cast<StructType>(T))
    return any_of(ST->elements(), holdsFloatsOrPointers);
  if (auto *AT = dyn_cast<ArrayType>(T))
    return holdsFloatsOrPointers(AT->getElementType());
  return T->getScalarType()->isFloatingPointTy() || T->getScalarType()->isPointerTy();
}

/// note() lists at most 64 elements of an array: a type with more floats or pointers tells
/// nothing past them.
static bool fullyNoted(Type *T) {
  if (auto *ST = dyn_cast<StructType>(T))
    return all_of(ST->elements(), fullyNoted);
  if (auto *AT = dyn_cast<ArrayType>(T))
    return (AT->getNumElements() <= 64 || !holdsFloatsOrPointers(AT->getElementType())) &&
           fullyNoted(AT->getElementType());
  return true;
}

static void hint(const DataLayout &DL, MemoryLayout &L, Type *T, std::optional<int64_t> Off) {
  // A byte array (`alloca [32 x i8]`, as rustc types every local) states nothing about its bytes.
  if (!Off || !(T->isStructTy() || T->isArrayTy()) || !T->isSized() || !fullyNoted(T) || onlyBytes(T))
    return;
  note(DL, L, T, Off, /*Stated=*/true);
  L.Typed.push_back({*Off, DL.getTypeAllocSize(T).getFixedValue()});
}

namespace {
/// What the callers of a parameter pass for it, relative to the parameter; Conflict when callers
/// disagree about a field.
struct CallerView {
  MemoryLayout L;
  bool Any = false, Conflict = false;
};
/// One query's walk over callers: parameters being visited (recursion) and those already done
/// (a parameter reached along several call chains is looked at once).
struct CallerWalk {
  SmallPtrSet<const Argument *, 8> Visiting;
  DenseMap<const Argument *, CallerView> Done;
  /// Callee parameters walked down into, with what their function does through them.
  DenseMap<const Argument *, MemoryLayout> Callees;
};
} // namespace

static MemoryLayout layoutAt(const DataLayout &DL, const Value *Ptr, unsigned Depth, CallerWalk &W,
                             bool Down = false);

/// The function a simplified clone was made from (the one its callers call), or F itself.
static const Function *originalOf(const Function *F) {
  if (F->hasFnAttribute(PrimalOfAttr))
    if (const Function *O = F->getParent()->getFunction(F->getFnAttribute(PrimalOfAttr).getValueAsString()))
      return O;
  return F;
}

static CallerView callerView(const DataLayout &DL, const Argument *A, unsigned Depth, CallerWalk &W) {
  auto It = W.Done.find(A);
  if (It != W.Done.end())
    return It->second;
  CallerView V;
  if (Depth >= 4 || !W.Visiting.insert(A).second)
    return V; // too deep, or recursion: what is known comes from the other call sites
  const Function *F = originalOf(A->getParent());
  unsigned Sites = 0;
  for (const Function *G : {F, A->getParent()}) {
    for (const Use &U : G->uses()) {
      auto *CB = dyn_cast<CallBase>(U.getUser());
      if (!CB || !CB->isCallee(&U) || CB->arg_size() <= A->getArgNo() || ++Sites > 64)
        continue;
      MemoryLayout C = layoutAt(DL, CB->getArgOperand(A->getArgNo()), Depth + 1, W);
      for (auto &[Off, T] : C.Fields) {
        auto Known = V.L.Fields.find(Off);
        V.Conflict |= Known != V.L.Fields.end() && Known->second != T;
      }
      V.L.merge(C);
      V.Any = true;
    }
    if (G == A->getParent())
      break;
  }
  W.Visiting.erase(A);
  return W.Done[A] = V;
}

/// Adds what the callers of A's function pass for A (their objects' stated types and accesses),
/// shifted to be relative to the pointer asked about (A sits at Start from it). A parameter's
/// memory belongs to the caller: a callee that only copies it (an implicit copy constructor, a
/// memcpy wrapper) sees no field of it, while every caller knows what it passes. Callers that
/// disagree (a generic copy called with different structs) add nothing but the doubt.
static void addCallerViews(const DataLayout &DL, MemoryLayout &L, const Argument *A, std::optional<int64_t> Start,
                           unsigned Depth, CallerWalk &W) {
  CallerView V = callerView(DL, A, Depth, W);
  if (!V.Any)
    return;
  MemoryLayout &Callers = V.L;
  L.Pointers |= Callers.Pointers;
  L.AddressIntegers |= Callers.AddressIntegers;
  L.Floats.insert(Callers.Floats.begin(), Callers.Floats.end());
  if (V.Conflict || !Start) {
    L.Complete = false; // kinds are known, offsets are not
    return;
  }
  if (Callers.Typed.empty() && (Callers.Pointers || !Callers.Floats.empty()))
    L.Complete = false; // callers' accesses seen in part, with no stated type to fill the gaps
  for (auto &[Off, T] : Callers.Fields)
    L.addField(Off + *Start, T);
  for (auto &[Off, T] : Callers.Alternates)
    L.addField(Off + *Start, T);
  for (auto &[Off, Size] : Callers.Typed)
    L.Typed.push_back({Off + *Start, Size});
  for (auto &[Off, Size] : Callers.Ints)
    L.Ints.emplace(Off + *Start, Size);
}

MemoryLayout accessLayout(const DataLayout &DL, const Value *Ptr) {
  CallerWalk W;
  return layoutAt(DL, Ptr, 0, W);
}

/// What Callee does through its parameter A, the object passed at offset Off of L's (a callee
/// left out of line: Rust's iterator `next`, `zip`, which alone touch the fields of an iterator
/// the caller only copies). Only the callee's side is walked, not its other callers.
static void addCalleeView(const DataLayout &DL, MemoryLayout &L, const Argument *A, int64_t Off, unsigned Depth,
                          CallerWalk &W) {
  if (Depth >= 4 || !W.Visiting.insert(A).second)
    return;
  auto It = W.Callees.find(A);
  if (It == W.Callees.end())
    It = W.Callees.try_emplace(A, layoutAt(DL, A, Depth + 1, W, /*Down=*/true)).first;
  W.Visiting.erase(A);
  const MemoryLayout &C = It->second;
  L.FromCallees = true;
  L.HiddenUse |= C.HiddenUse;
  L.Pointers |= C.Pointers;
  L.AddressIntegers |= C.AddressIntegers;
  L.PointerAtUnknownOffset |= C.PointerAtUnknownOffset;
  L.CopiedInto |= C.CopiedInto;
  L.Floats.insert(C.Floats.begin(), C.Floats.end());
  for (auto &[O, T] : C.Fields)
    L.addField(O + Off, T);
  for (auto &[O, T] : C.Alternates)
    L.addField(O + Off, T);
  for (auto &[O, T] : C.Arrays)
    L.addArray(O + Off, T);
  // Not the callee's stated types (Typed, Ints): a callee may see the bytes as another member
  // of a union (std::function's _Any_data, typed as pointers, holding a captured double).
}

/// The bytes a constant-length copy moves between the object walked (at Off, through Side) and
/// another: what the other object's function does with them (a Rust iterator adapter built by
/// copying its parts into its result, `Zip::new(a, b)`, accesses none of the fields itself).
static void addCopyView(const DataLayout &DL, MemoryLayout &L, const MemTransferInst *MT, const Value *Side,
                        int64_t Off, unsigned Depth, CallerWalk &W) {
  auto *Len = dyn_cast<ConstantInt>(MT->getLength());
  const Value *Other = MT->getRawDest() == Side ? MT->getRawSource() : MT->getRawDest();
  if (!Len || Other == Side || Depth >= 4)
    return;
  MemoryLayout C = layoutAt(DL, Other, Depth + 1, W, /*Down=*/true);
  L.FromCallees = true;
  int64_t N = Len->getSExtValue();
  for (auto &[O, T] : C.Fields)
    if (O >= 0 && O < N) {
      L.addField(O + Off, T);
      L.Pointers |= T->isPointerTy();
      if (T->isFloatingPointTy())
        L.Floats.insert(T);
    }
}

/// A local slot that holds only the value Store puts there (a parameter spilled by an -O0 or
/// debug build): every other use loads it back.
static bool spillOnly(const AllocaInst *Slot, const StoreInst *Store) {
  return Store->getValueOperand()->getType()->isPointerTy() &&
         all_of(Slot->users(), [&](const User *U) {
           auto *II = dyn_cast<IntrinsicInst>(U);
           return U == Store || isa<LoadInst>(U) || (II && II->isLifetimeStartOrEnd());
         });
}

static MemoryLayout layoutAt(const DataLayout &DL, const Value *Ptr, unsigned Depth, CallerWalk &W, bool Down) {
  MemoryLayout L, Views;
  APInt PtrOff(DL.getIndexTypeSizeInBits(Ptr->getType()), 0);
  const Value *Base = Ptr->stripAndAccumulateConstantOffsets(DL, PtrOff, /*AllowNonInbounds=*/true);
  const Value *Stripped = Base;
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
  // not known. The same holds at a constant offset from such an element (`a[k-1].i` addressed
  // from the GEP of `a[k]`): the bytes at Ptr lie in the element around them.
  auto *G = dyn_cast<GEPOperator>(Ptr);
  if (!G || G->getNumIndices() != 1 || !G->getSourceElementType()->isStructTy())
    G = dyn_cast<GEPOperator>(Stripped);
  if (G && G->getNumIndices() == 1 && G->getSourceElementType()->isStructTy() &&
      (G == Ptr || !isa<Constant>(G->getOperand(1)))) {
    int64_t Size = DL.getTypeAllocSize(G->getSourceElementType()).getFixedValue();
    int64_t At = G == Ptr ? 0 : -PtrOff.getSExtValue(); // where the element G points at starts
    int64_t E = At <= 0 ? -At / Size : -((At + Size - 1) / Size); // floor(-At / Size)
    hint(DL, L, G->getSourceElementType(), At + E * Size);
  }
  if (auto *AI = dyn_cast<AllocaInst>(Base))
    hint(DL, L, AI->getAllocatedType(), Start);
  else if (auto *GV = dyn_cast<GlobalVariable>(Base))
    hint(DL, L, GV->getValueType(), Start);
  // An access as wide as the whole local it reaches covers it from its first byte, wherever the
  // pointer came from (rustc's enum temporaries: a payload `f64` stored through a phi of two
  // 8-byte slots, then moved on as `i64`).
  std::optional<uint64_t> ObjBytes;
  if (auto *AI = dyn_cast<AllocaInst>(Base); AI && Start)
    if (auto Sz = AI->getAllocationSize(DL); Sz && !Sz->isScalable())
      ObjBytes = Sz->getFixedValue();
  auto accessAt = [&](Type *T, std::optional<int64_t> Off) -> std::optional<int64_t> {
    if (!Off && ObjBytes && T->isSized() && DL.getTypeStoreSize(T).getFixedValue() == *ObjBytes)
      return Start;
    return Off;
  };
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
        if (Off && G->getPointerOperand() == V && G->getNumIndices() == 1 && !isa<Constant>(G->getOperand(1)) &&
            G->getSourceElementType()->isSized() && !onlyBytes(G->getSourceElementType()))
          L.addArray(*Off, G->getSourceElementType());
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
        // Integers that are a pointer's bits (an address kept as uintptr_t) are pointers here.
        L.AddressIntegers |= loadsPointerBits(LI);
        note(DL, L, loadsPointerBits(LI) ? PointerType::get(LI->getContext(), 0) : LI->getType(),
             accessAt(LI->getType(), Off));
      } else if (auto *SI = dyn_cast<StoreInst>(I)) {
        if (SI->getPointerOperand() == U.get()) {
          bool Address = storedPointerBits(SI->getValueOperand()) != nullptr;
          L.AddressIntegers |= Address;
          note(DL, L, Address ? PointerType::get(SI->getContext(), 0) : SI->getValueOperand()->getType(),
               accessAt(SI->getValueOperand()->getType(), Off));
        }
        else if (auto *Spill = dyn_cast<AllocaInst>(SI->getPointerOperand()); Spill && Down && spillOnly(Spill, SI))
          for (const User *SU : Spill->users()) // an unoptimized callee keeps its parameter there
            if (isa<LoadInst>(SU) && Seen.insert(SU).second)
              Work.push_back({SU, Off});
      } else if (auto *CB = dyn_cast<CallBase>(I)) {
        const Function *Callee = CB->getCalledFunction();
        if (!isa<MemIntrinsic>(I) && !isa<IntrinsicInst>(I) && !isAllocator(Callee)) {
          // A callee with a body is walked through the parameter it receives the object in;
          // any other may access it in ways not seen here.
          if (Callee && !Callee->isDeclaration() && !Callee->isVarArg() && Off && CB->isArgOperand(&U) &&
              CB->getArgOperandNo(&U) < Callee->arg_size())
            addCalleeView(DL, Views, Callee->getArg(CB->getArgOperandNo(&U)), *Off, Depth, W);
          L.Complete = false;
          L.SeenInCallee |= !Callee || !Callee->isDeclaration();
          L.HiddenUse |= !Callee || Callee->isDeclaration();
        }
        if (auto *MT = dyn_cast<MemTransferInst>(I); MT && MT->getRawDest() == U.get()) {
          auto *G = dyn_cast<GlobalVariable>(getUnderlyingObject(MT->getSource(), 12));
          L.CopiedInto |= !G || !G->isConstant() || holdsFloatsOrPointers(G->getValueType());
        }
        if (auto *MT = dyn_cast<MemTransferInst>(I); MT && Off && Down) // the caller's own copies are asked about directly
          addCopyView(DL, Views, MT, U.get(), *Off, Depth, W);
      }
    }
  }
  if (auto *A = dyn_cast<Argument>(Base); A && A->getType()->isPointerTy() && !Down)
    addCallerViews(DL, L, A, Start, Depth, W);
  // Memory this function and its callers never access as floats or pointers, only hand to
  // callees or copy (a Rust iterator in a debug build): what those callees and copies do.
  if (L.Fields.empty() && !L.Pointers && L.Floats.empty() && (Views.Pointers || !Views.Floats.empty()) &&
      !L.HiddenUse && !Views.HiddenUse) {
    bool Complete = L.Complete;
    L.merge(Views);
    L.Complete = Complete;
  }
  return L;
}

} // namespace synthase

namespace synthase {

/// The constant byte offset of P inside Obj, when P is Obj plus constant offsets.
static std::optional<int64_t> offsetIn(const DataLayout &DL, const Value *P, const Value *Obj) {
  APInt Off(DL.getIndexTypeSizeInBits(P->getType()), 0);
  const Value *Base = P->stripAndAccumulateConstantOffsets(DL, Off, /*AllowNonInbounds=*/true);
  if (Base != Obj)
    return std::nullopt;
  return Off.getSExtValue();
}

void settleAtCopy(const DataLayout &DL, MemoryLayout &L, const Value *Src, const Instruction *At) {
  if (L.Alternates.empty())
    return;
  auto *Obj = dyn_cast<AllocaInst>(getUnderlyingObject(Src, 12));
  std::optional<int64_t> SrcOff = Obj ? offsetIn(DL, Src, Obj) : std::nullopt;
  if (!SrcOff)
    return; // only a local's stores can all be seen
  // Offsets still open, in the object's coordinates.
  std::map<int64_t, int64_t> Open; // object offset -> copy offset
  for (auto &[Off, T] : L.Alternates)
    Open[*SrcOff + Off] = Off;
  const Instruction *I = At;
  const BasicBlock *BB = At->getParent();
  SmallPtrSet<const BasicBlock *, 8> Visited{BB};
  for (unsigned Steps = 0; !Open.empty() && Steps < 2000; ++Steps) {
    if (I == &BB->front()) {
      BB = BB->getSinglePredecessor();
      if (!BB || !Visited.insert(BB).second)
        return;
      I = BB->getTerminator();
    } else
      I = I->getPrevNode();
    if (!I->mayWriteToMemory())
      continue;
    const Value *Dest = nullptr;
    uint64_t Size = 0;
    Type *StoredTy = nullptr;
    if (auto *SI = dyn_cast<StoreInst>(I)) {
      Dest = SI->getPointerOperand();
      StoredTy = SI->getValueOperand()->getType();
      Size = DL.getTypeStoreSize(StoredTy);
    } else if (auto *MI = dyn_cast<MemIntrinsic>(I)) {
      Dest = MI->getDest();
      auto *Len = dyn_cast<ConstantInt>(MI->getLength());
      Size = Len ? Len->getZExtValue() : UINT64_MAX;
    } else if (isa<IntrinsicInst>(I) && !isa<MemIntrinsic>(I)) {
      continue; // lifetime markers, assumes
    } else {
      // A call may write the local only if its address got out or is passed in.
      auto *CB = dyn_cast<CallBase>(I);
      if (!CB || any_of(CB->args(), [&](const Use &U) { return getUnderlyingObject(U.get(), 12) == Obj; }) ||
          PointerMayBeCaptured(Obj, /*ReturnCaptures=*/true))
        return;
      continue;
    }
    if (getUnderlyingObject(Dest, 12) != Obj) {
      if (isIdentifiedObject(getUnderlyingObject(Dest, 12)) || !PointerMayBeCaptured(Obj, true))
        continue;
      return; // may write the local through another pointer
    }
    std::optional<int64_t> D = offsetIn(DL, Dest, Obj);
    if (!D)
      return;
    for (auto It = Open.begin(); It != Open.end();) {
      int64_t O = It->first;
      bool Covers = O >= *D && (Size == UINT64_MAX || O < *D + (int64_t)Size);
      if (!Covers) {
        ++It;
        continue;
      }
      if (!StoredTy || *D != O || !(StoredTy->isFloatingPointTy() || StoredTy->isPointerTy()))
        return; // a byte copy, a memset or a partial store decides it: left open
      L.Fields[It->second] = StoredTy;
      L.Alternates.erase(It->second);
      It = Open.erase(It);
    }
  }
}

/// Len is a multiple of Size by construction: n * Size, n << k, or known low zero bits.
static bool multipleOf(const DataLayout &DL, const Value *Len, uint64_t Size) {
  if (auto *C = dyn_cast<ConstantInt>(Len))
    return C->getZExtValue() % Size == 0;
  if (auto *BO = dyn_cast<BinaryOperator>(Len)) {
    if (BO->getOpcode() == Instruction::Mul)
      for (const Value *Op : BO->operands())
        if (auto *C = dyn_cast<ConstantInt>(Op); C && C->getZExtValue() % Size == 0)
          return true;
    auto *K = dyn_cast<ConstantInt>(BO->getOperand(1));
    if (BO->getOpcode() == Instruction::Shl && K && K->getZExtValue() < 63 &&
        (uint64_t(1) << K->getZExtValue()) % Size == 0)
      return true;
  }
  return isPowerOf2_64(Size) && computeKnownBits(Len, DL).countMinTrailingZeros() >= Log2_64(Size);
}

Type *copiedElementType(const DataLayout &DL, const MemTransferInst *MT) {
  Type *Found = nullptr;
  for (const Value *P : {MT->getRawDest(), MT->getRawSource()}) {
    // `&a[i + 1]` is often the GEP of a[i] plus a constant number of bytes.
    APInt Off(DL.getIndexTypeSizeInBits(P->getType()), 0);
    auto *G = dyn_cast<GEPOperator>(P->stripAndAccumulateConstantOffsets(DL, Off, /*AllowNonInbounds=*/true));
    if (!G || G->getNumIndices() != 1 || isa<Constant>(G->getOperand(1)))
      continue;
    Type *T = G->getSourceElementType();
    uint64_t Size = DL.getTypeAllocSize(T);
    if (!T->isSized() || Size == 0 || onlyBytes(T) || Off.getSExtValue() % (int64_t)Size != 0)
      continue;
    if (Found && Found != T)
      return nullptr;
    Found = T;
  }
  if (!Found) {
    // Both ends at constant offsets in an object whose arrays are indexed elsewhere (a B-tree
    // node's keys shifted by one: memmove(node + 16, node + 8, n * 8)). The copy is taken to stay
    // in the array it starts in, as a copy between two arrays of one object could not.
    Type *TD = accessLayout(DL, MT->getRawDest()).arrayElementAtStart(DL);
    if (!TD || TD != accessLayout(DL, MT->getRawSource()).arrayElementAtStart(DL))
      return nullptr;
    Found = TD;
  }
  if (!multipleOf(DL, MT->getLength(), DL.getTypeAllocSize(Found)))
    return nullptr;
  return Found;
}

} // namespace synthase
