#include "Analysis/TypedCopies.h"
#include "Analysis/MemoryLayout.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/GetElementPtrTypeIterator.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include <functional>

using namespace llvm;

namespace synthase {

static constexpr const char *NoDerivativeKind = "synthase.no_derivative_data";
static constexpr const char *IntegerMemberStoreKind = "synthase.integer_member_store";
static constexpr uint64_t MaxExpandedBytes = 512;

bool copiesNoDerivativeData(const MemIntrinsic *MI) { return MI->getMetadata(NoDerivativeKind) != nullptr; }

bool movesNoDerivativeData(const Instruction *I) { return I->getMetadata(NoDerivativeKind) != nullptr; }

/// The name of the scalar type a TBAA access tag (or a !tbaa.struct member's tag) describes.
static StringRef tbaaTypeName(const MDNode *Tag) {
  auto *Access = Tag && Tag->getNumOperands() >= 2 ? dyn_cast<MDNode>(Tag->getOperand(1)) : nullptr;
  auto *Name = Access && Access->getNumOperands() ? dyn_cast<MDString>(Access->getOperand(0)) : nullptr;
  return Name ? Name->getString() : "";
}

/// clang's names for integer types (unsigned types share their signed type's node); not the
/// character types, whose node, "omnipotent char", also describes raw bytes.
static bool isTbaaIntegerName(StringRef N) {
  return StringSwitch<bool>(N)
      .Cases({"int", "short", "long", "long long", "bool", "_Bool", "__int128"}, true)
      .Cases({"wchar_t", "char8_t", "char16_t", "char32_t"}, true)
      .Default(false);
}

/// The float and pointer fields of a copy as clang's !tbaa.struct lists them (offset, size, tag
/// per scalar member; integers are left out, they stay bytes), in order. Nothing when a member
/// is not a scalar clang names (a union is listed as characters of its size) or fields overlap.
static std::optional<SmallVector<std::pair<uint64_t, Type *>, 16>> tbaaStructFields(const MemCpyInst *MC,
                                                                                   uint64_t Len) {
  auto *TS = MC->getMetadata(LLVMContext::MD_tbaa_struct);
  if (!TS || TS->getNumOperands() % 3 != 0)
    return std::nullopt;
  LLVMContext &C = MC->getContext();
  SmallVector<std::pair<uint64_t, Type *>, 16> Fields;
  uint64_t End = 0;
  for (unsigned K = 0; K < TS->getNumOperands(); K += 3) {
    auto *Off = mdconst::dyn_extract<ConstantInt>(TS->getOperand(K));
    auto *Size = mdconst::dyn_extract<ConstantInt>(TS->getOperand(K + 1));
    StringRef N = tbaaTypeName(dyn_cast<MDNode>(TS->getOperand(K + 2)));
    if (!Off || !Size || N.empty())
      return std::nullopt;
    uint64_t O = Off->getZExtValue(), S = Size->getZExtValue();
    if (O < End || O + S > Len)
      return std::nullopt;
    End = O + S;
    Type *T = nullptr;
    if (N == "double" && S == 8)
      T = Type::getDoubleTy(C);
    else if (N == "float" && S == 4)
      T = Type::getFloatTy(C);
    else if ((N == "any pointer" || N == "vtable pointer" || (N.size() > 2 && N[0] == 'p' && isDigit(N[1]))) && S == 8)
      T = PointerType::getUnqual(C);
    else if (isTbaaIntegerName(N) || (N == "omnipotent char" && S == 1))
      continue; // integer bytes: copied as they are
    else
      return std::nullopt;
    Fields.push_back({O, T});
  }
  return Fields;
}

void expandTypedCopies(Function &F) {
  const DataLayout &DL = F.getParent()->getDataLayout();
  SmallVector<MemCpyInst *, 8> Copies;
  for (Instruction &I : instructions(F))
    if (auto *MC = dyn_cast<MemCpyInst>(&I); MC && !MC->isVolatile() && isa<ConstantInt>(MC->getLength()))
      Copies.push_back(MC);
  for (MemCpyInst *MC : Copies) {
    uint64_t Len = cast<ConstantInt>(MC->getLength())->getZExtValue();
    if (Len == 0 || Len > MaxExpandedBytes)
      continue;
    MemoryLayout L = accessLayout(DL, MC->getDest());
    L.merge(accessLayout(DL, MC->getSource()));
    settleAtCopy(DL, L, MC->getSource(), MC);
    // The float and pointer fields inside the copy, in order, not overlapping (a union is left
    // to the generic handling).
    SmallVector<std::pair<uint64_t, Type *>, 16> Fields;
    bool Overlap = false;
    if (!L.Typed.empty() && L.knownWithin(Len) && !L.ambiguousWithin(DL, Len)) {
      uint64_t End = 0;
      for (auto &[Off, T] : L.Fields) {
        uint64_t Size = DL.getTypeStoreSize(T);
        if (Off < 0 || (uint64_t)Off + Size > Len)
          continue;
        Overlap |= (uint64_t)Off < End;
        Fields.push_back({(uint64_t)Off, T});
        End = Off + Size;
      }
    } else {
      // Accessed in ways that leave the layout open (a sort's temporaries at -O2, where the
      // copies are all that touches them): clang's description of the copied type.
      if (auto TF = tbaaStructFields(MC, Len))
        Fields = *TF;
    }
    if (Fields.empty() || Overlap)
      continue;
    IRBuilder<> B(MC);
    Value *Dst = MC->getDest(), *Src = MC->getSource();
    auto gap = [&](uint64_t From, uint64_t To) {
      if (To <= From)
        return;
      if (To - From > 16) {
        CallInst *G = B.CreateMemCpy(B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Dst, From), Align(1),
                                     B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Src, From), Align(1), To - From);
        G->setMetadata(NoDerivativeKind, MDNode::get(F.getContext(), {}));
        return;
      }
      // Small gaps (an int field, padding) as marked integer moves: simplification would turn a
      // memcpy into unmarked ones, which look like float bits moved at the wrong width.
      for (uint64_t At = From; At < To;) {
        uint64_t Piece = 8;
        while (Piece > To - At || At % Piece)
          Piece /= 2;
        Type *IT = B.getIntNTy(8 * Piece);
        LoadInst *V = B.CreateAlignedLoad(IT, B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Src, At), Align(1));
        StoreInst *S = B.CreateAlignedStore(V, B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Dst, At), Align(1));
        V->setMetadata(NoDerivativeKind, MDNode::get(F.getContext(), {}));
        S->setMetadata(NoDerivativeKind, MDNode::get(F.getContext(), {}));
        At += Piece;
      }
    };
    uint64_t Cursor = 0;
    for (auto &[Off, T] : Fields) {
      gap(Cursor, Off);
      Value *V = B.CreateAlignedLoad(T, B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Src, Off), Align(1));
      B.CreateAlignedStore(V, B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Dst, Off), Align(1));
      Cursor = Off + DL.getTypeStoreSize(T);
    }
    gap(Cursor, Len);
    MC->eraseFromParent();
  }
}

/// The scalar type at offset 0 of T (a struct's first member, an array's first element), or null
/// through a union: a member may hold another's bytes.
static Type *scalarAtStart(Type *T) {
  while (true) {
    if (auto *ST = dyn_cast<StructType>(T)) {
      if (!ST->hasName() || ST->getName().starts_with("union.") || ST->getNumElements() == 0)
        return nullptr;
      T = ST->getElementType(0);
    } else if (auto *AT = dyn_cast<ArrayType>(T)) {
      T = AT->getElementType();
    } else {
      return T;
    }
  }
}

/// Whether a GEP's typed path goes through a named struct and no union.
static bool throughStruct(const GEPOperator *G) {
  bool InStruct = isa<StructType>(G->getResultElementType());
  for (gep_type_iterator It = gep_type_begin(G), E = gep_type_end(G); It != E; ++It)
    if (StructType *ST = It.getStructTypeOrNull()) {
      if (!ST->hasName() || ST->getName().starts_with("union."))
        return false;
      InStruct = true;
    }
  return InStruct;
}

/// Whether every address P can be (through phis and selects) is a struct-typed GEP whose
/// scalar at the address is the integer type T: `p->id`, or `*--it` on a std::pair<int, double>
/// whose `first` sits at offset 0 (the member GEP folded away when the operator was inlined).
static bool addressesIntegerMember(const Value *P, Type *T, SmallPtrSetImpl<const Value *> &Seen) {
  if (!Seen.insert(P).second)
    return true;
  if (Seen.size() > 16)
    return false;
  if (auto *Phi = dyn_cast<PHINode>(P))
    return all_of(Phi->incoming_values(), [&](const Value *V) { return addressesIntegerMember(V, T, Seen); });
  if (auto *Sel = dyn_cast<SelectInst>(P))
    return addressesIntegerMember(Sel->getTrueValue(), T, Seen) && addressesIntegerMember(Sel->getFalseValue(), T, Seen);
  auto *G = dyn_cast<GEPOperator>(P);
  return G && throughStruct(G) && scalarAtStart(G->getResultElementType()) == T;
}

/// The scalar of T at byte Off and whether T holds a pointer scalar anywhere; null when Off falls
/// in padding, in the middle of a scalar, or in a union or an array of integers.
static Type *scalarAtOffset(const DataLayout &DL, Type *T, uint64_t Off, bool &HasPointer) {
  Type *Found = nullptr;
  bool Ok = true;
  std::function<void(Type *, uint64_t, bool)> Walk = [&](Type *X, uint64_t Base, bool InIntArray) {
    if (auto *ST = dyn_cast<StructType>(X)) {
      if (ST->isOpaque() || (ST->hasName() && ST->getName().starts_with("union.")))
        Ok = false;
      if (!Ok || ST->isOpaque())
        return;
      const StructLayout *SL = DL.getStructLayout(ST);
      for (unsigned K = 0; K < ST->getNumElements(); ++K)
        Walk(ST->getElementType(K), Base + SL->getElementOffset(K), InIntArray);
    } else if (auto *AT = dyn_cast<ArrayType>(X)) {
      uint64_t Size = DL.getTypeAllocSize(AT->getElementType());
      bool Ints = AT->getElementType()->isIntegerTy();
      for (uint64_t K = 0; K < AT->getNumElements() && K < 64; ++K)
        Walk(AT->getElementType(), Base + K * Size, InIntArray || Ints);
    } else if (X->isPointerTy()) {
      HasPointer = true;
    } else if (Base == Off && !InIntArray && X->isSized()) {
      Found = X;
    } else if (Base < Off && Off < Base + DL.getTypeStoreSize(X)) {
      Ok = false;
    }
  };
  Walk(T, 0, false);
  return Ok ? Found : nullptr;
}

bool typedIntegerField(const Value *P, uint64_t Bytes) {
  auto *I = dyn_cast<Instruction>(P);
  if (!I)
    return false;
  const DataLayout &DL = I->getDataLayout();
  uint64_t Off = 0;
  // Constant byte offsets down to an element of a struct-typed GEP.
  const Value *V = P;
  while (auto *G = dyn_cast<GEPOperator>(V)) {
    if (G->getNumIndices() == 1 && G->getSourceElementType()->isStructTy()) {
      Type *S = G->getSourceElementType();
      if (DL.getTypeAllocSize(S) <= Off)
        return false;
      bool HasPointer = false;
      Type *T = scalarAtOffset(DL, S, Off, HasPointer);
      return HasPointer && T && T->isIntegerTy() && DL.getTypeStoreSize(T) == Bytes;
    }
    APInt C(DL.getIndexTypeSizeInBits(G->getType()), 0);
    if (!G->getSourceElementType()->isIntegerTy(8) || !G->accumulateConstantOffset(DL, C) || C.isNegative())
      return false;
    Off += C.getZExtValue();
    V = G->getPointerOperand();
  }
  return false;
}

/// A load of a struct's integer member through a GEP that names it: integer data, whatever
/// float fields sit around it.
static bool loadsIntegerMember(const LoadInst *L) {
  SmallPtrSet<const Value *, 8> Seen;
  return L->getType()->isIntegerTy() && addressesIntegerMember(L->getPointerOperand(), L->getType(), Seen);
}

/// Whether the front end's type-based alias tag on I names an integer type.
static bool tbaaAccessesInteger(const Instruction *I, Type *T) {
  auto *Tag = I->getMetadata(LLVMContext::MD_tbaa);
  return T->isIntegerTy() && Tag && Tag->getNumOperands() >= 3 && isTbaaIntegerName(tbaaTypeName(Tag));
}

bool tbaaReadsInteger(const LoadInst *L) { return tbaaAccessesInteger(L, L->getType()); }

bool storesIntegerField(const StoreInst *S) {
  return S->getMetadata(IntegerMemberStoreKind) || tbaaAccessesInteger(S, S->getValueOperand()->getType());
}

void markIntegerMembers(Function &F) {
  for (Instruction &I : instructions(F)) {
    SmallPtrSet<const Value *, 8> Seen;
    if (auto *L = dyn_cast<LoadInst>(&I); L && loadsIntegerMember(L))
      L->setMetadata(NoDerivativeKind, MDNode::get(F.getContext(), {}));
    else if (auto *S = dyn_cast<StoreInst>(&I); S && S->getValueOperand()->getType()->isIntegerTy() &&
                                                addressesIntegerMember(S->getPointerOperand(), S->getValueOperand()->getType(), Seen))
      S->setMetadata(IntegerMemberStoreKind, MDNode::get(F.getContext(), {}));
  }
}

} // namespace synthase
