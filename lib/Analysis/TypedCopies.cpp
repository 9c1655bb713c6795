#include "Analysis/TypedCopies.h"
#include "Analysis/MemoryLayout.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace synthase {

static constexpr const char *NoDerivativeKind = "synthase.no_derivative_data";
static constexpr uint64_t MaxExpandedBytes = 512;

bool copiesNoDerivativeData(const MemIntrinsic *MI) { return MI->getMetadata(NoDerivativeKind) != nullptr; }

bool movesNoDerivativeData(const Instruction *I) { return I->getMetadata(NoDerivativeKind) != nullptr; }

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
    if (L.Typed.empty() || !L.knownWithin(Len) || L.ambiguousWithin(DL, Len))
      continue;
    // The float and pointer fields inside the copy, in order, not overlapping (a union is left
    // to the generic handling).
    SmallVector<std::pair<uint64_t, Type *>, 16> Fields;
    uint64_t End = 0;
    bool Overlap = false;
    for (auto &[Off, T] : L.Fields) {
      uint64_t Size = DL.getTypeStoreSize(T);
      if (Off < 0 || (uint64_t)Off + Size > Len)
        continue;
      Overlap |= (uint64_t)Off < End;
      Fields.push_back({(uint64_t)Off, T});
      End = Off + Size;
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

} // namespace synthase
