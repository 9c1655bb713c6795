// Which fields of a local record never hold an address. A record that keeps one address as an
// integer (hashbrown's RawTable swaps its control pointer as i64 in release builds) makes every
// integer stored into it suspect: it might be that address, rebuilt by arithmetic. Its counters
// (bucket mask, growth left, item count) are computed from one another and from constants, so a
// fixed point over the record's constant-offset fields tells them from the address slot.
#include "Analysis/UnshadowedMemory.h"
#include "Rules/Rules.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Support/KnownBits.h"
#include "llvm/IR/Operator.h"
#include <map>
#include <optional>

using namespace llvm;

namespace synthase {

namespace {
struct Access {
  const Instruction *I;
  std::optional<int64_t> Off; ///< from the record's start; none when reached through a merge
};

/// The offset into Base of a merge (phi, select) whose inputs from Base all sit at one offset
/// (`phi [%rec+16, %loop], [inttoptr 16, %empty]`). Its other inputs point elsewhere: constants,
/// parameters, other objects, pointers loaded from memory (Base's address is never stored).
std::optional<int64_t> mergedOffset(const Instruction *Merge, const AllocaInst *Base) {
  const DataLayout &DL = Base->getDataLayout();
  std::optional<int64_t> Common;
  for (unsigned i = isa<SelectInst>(Merge) ? 1 : 0; i < Merge->getNumOperands(); ++i) {
    const Value *In = Merge->getOperand(i);
    if (In == Merge)
      continue;
    int64_t Off = 0;
    const Value *B = GetPointerBaseWithConstantOffset(In, Off, DL);
    if (B == Base) {
      if (Common && *Common != Off)
        return std::nullopt;
      Common = Off;
    } else if (!isa<Constant>(B) && !isa<Argument>(B) && !isa<AllocaInst>(B) && !isa<CallBase>(B) &&
               !isa<LoadInst>(B)) {
      return std::nullopt;
    }
  }
  return Common;
}

/// Every load, store and copy of a local record, with its offset. False when the record is used
/// in a way this does not follow (passed to a call, its address stored, more than 1024 pointers).
bool collectAccesses(const AllocaInst *Base, std::vector<Access> &Out) {
  const DataLayout &DL = Base->getDataLayout();
  SmallVector<std::pair<const Value *, std::optional<int64_t>>, 16> Work{{Base, 0}};
  SmallPtrSet<const Value *, 32> Seen{Base};
  while (!Work.empty()) {
    auto [V, Off] = Work.pop_back_val();
    for (const Use &U : V->uses()) {
      auto *I = dyn_cast<Instruction>(U.getUser());
      if (!I || Seen.size() > 1024)
        return false;
      std::optional<int64_t> Next;
      if (auto *G = dyn_cast<GetElementPtrInst>(I)) {
        APInt C(DL.getIndexTypeSizeInBits(G->getType()), 0);
        if (Off && G->accumulateConstantOffset(DL, C))
          Next = *Off + C.getSExtValue();
      } else if (isa<PHINode>(I) || isa<SelectInst>(I)) {
        Next = mergedOffset(I, Base);
      } else if (isa<FreezeInst>(I)) {
        Next = Off;
      } else if (isa<BitCastInst>(I) || isa<AddrSpaceCastInst>(I)) {
        Next = Off;
      } else if (isa<LoadInst>(I) || isa<ICmpInst>(I) || isa<PtrToIntInst>(I)) {
        if (isa<LoadInst>(I))
          Out.push_back({I, Off});
        continue;
      } else if (auto *SI = dyn_cast<StoreInst>(I)) {
        if (SI->getValueOperand() == U.get())
          return false; // the record's address escapes into memory
        Out.push_back({I, Off});
        continue;
      } else if (auto *MT = dyn_cast<MemTransferInst>(I)) {
        if (MT->getRawDest() == U.get())
          Out.push_back({I, Off});
        continue; // a copy out of the record only reads it
      } else if (isIgnorableIntrinsic(I) || isa<MemSetInst>(I)) {
        if (isa<MemSetInst>(I))
          Out.push_back({I, Off});
        continue;
      } else {
        return false;
      }
      if (Seen.insert(I).second)
        Work.push_back({I, Next});
    }
  }
  return true;
}

struct Range {
  int64_t Lo, Hi;
  bool overlaps(const Range &O) const { return Lo < O.Hi && O.Lo < Hi; }
};

/// Whether constant C, laid out from byte At, has a pointer (or a constant expression, which may be
/// one's bits) overlapping bytes R.
bool pointerWithin(const DataLayout &DL, const Constant *C, int64_t At, const Range &R) {
  Range Here{At, At + (int64_t)DL.getTypeAllocSize(C->getType())};
  if (!Here.overlaps(R) || isa<ConstantData>(C) && !C->getType()->isPtrOrPtrVectorTy())
    return false;
  if (C->getType()->isPtrOrPtrVectorTy() || isa<ConstantExpr>(C) || isa<GlobalValue>(C))
    return true;
  if (auto *S = dyn_cast<ConstantStruct>(C)) {
    const StructLayout *SL = DL.getStructLayout(S->getType());
    for (unsigned i = 0; i < S->getNumOperands(); ++i)
      if (pointerWithin(DL, S->getOperand(i), At + (int64_t)SL->getElementOffset(i), R))
        return true;
    return false;
  }
  if (isa<ConstantArray>(C) || isa<ConstantVector>(C)) {
    for (unsigned i = 0; i < C->getNumOperands(); ++i) {
      auto *E = cast<Constant>(C->getOperand(i));
      if (pointerWithin(DL, E, At + (int64_t)(i * DL.getTypeAllocSize(E->getType())), R))
        return true;
    }
    return false;
  }
  return true;
}

/// A constant made of numbers only: no global's address, no constant expression.
bool plainData(const Constant *C) {
  if (isa<ConstantData>(C))
    return !C->getType()->isPtrOrPtrVectorTy();
  if (isa<ConstantExpr>(C) || isa<GlobalValue>(C))
    return false;
  return all_of(C->operands(), [](const Use &U) { return plainData(cast<Constant>(U.get())); });
}

/// A local record whose accesses are all seen, and the byte ranges of it that may hold an address.
struct Record {
  std::vector<Access> Acc;
  std::vector<Range> Tainted;
  bool Anywhere = false; ///< an address may be written at an unknown offset

  bool tainted(const Range &R) const {
    return Anywhere || any_of(Tainted, [&](const Range &T) { return T.overlaps(R); });
  }
};

/// The least fixed point over every local record of a function: a field may hold an address
/// when something stored there may be one, and a value may be one when it is computed from
/// a pointer's bits or from a field that may hold one.
class FieldTaint {
  const DataLayout &DL;
  std::map<const AllocaInst *, Record> Records;
  std::map<const LoadInst *, std::pair<Record *, std::optional<Range>>> Loads;

public:
  explicit FieldTaint(const Function &F) : DL(F.getDataLayout()) {
    for (const Instruction &I : instructions(F)) {
      auto *A = dyn_cast<AllocaInst>(&I);
      Record R;
      if (!A || !collectAccesses(A, R.Acc))
        continue;
      Record &Rec = Records[A] = std::move(R);
      for (const Access &X : Rec.Acc)
        if (auto *L = dyn_cast<LoadInst>(X.I))
          Loads[L] = {&Rec, X.Off ? std::optional<Range>(Range{*X.Off, *X.Off + (int64_t)DL.getTypeStoreSize(L->getType())})
                                  : std::nullopt};
    }
    for (bool Changed = true; Changed;) {
      Changed = false;
      for (auto &[A, Rec] : Records)
        for (const Access &X : Rec.Acc)
          step(Rec, X, Changed);
    }
  }

  const Record *record(const AllocaInst *A) const {
    auto It = Records.find(A);
    return It == Records.end() ? nullptr : &It->second;
  }

private:
  /// Whether V may be an address: some integer it is computed from (through arithmetic, merges
  /// and integer intrinsics) is a pointer's bits, a value loaded from other memory, a parameter,
  /// a call's result, or a field that may hold one. A value below 4096 is never an address (the
  /// first page is not mapped), unless it is scaled up on the way (`shl`, `mul`).
  bool mayBeAddress(const Value *V) const {
    SmallVector<std::pair<const Value *, bool>, 16> Work{{V, false}};
    SmallPtrSet<const Value *, 32> Seen[2];
    while (!Work.empty()) {
      auto [X, Scaled] = Work.pop_back_val();
      if (!Seen[Scaled].insert(X).second)
        continue;
      if (Seen[0].size() + Seen[1].size() > 128 || isa<PtrToIntOperator>(X) || isa<Argument>(X) ||
          X->getType()->isPtrOrPtrVectorTy())
        return true;
      if (auto *C = dyn_cast<Constant>(X); C && plainData(C))
        continue;
      if (!Scaled && computeKnownBits(X, DL).countMaxActiveBits() <= 12)
        continue;
      if (auto *L = dyn_cast<LoadInst>(X)) {
        auto It = Loads.find(L);
        if (It == Loads.end() || !It->second.second || It->second.first->tainted(*It->second.second))
          return true;
        continue;
      }
      if (auto *II = dyn_cast<IntrinsicInst>(X)) {
        switch (II->getIntrinsicID()) {
        case Intrinsic::ctlz:
        case Intrinsic::cttz:
        case Intrinsic::ctpop:
          continue; // a bit count
        case Intrinsic::umax:
        case Intrinsic::umin:
        case Intrinsic::smax:
        case Intrinsic::smin:
        case Intrinsic::abs:
        case Intrinsic::fshl:
        case Intrinsic::fshr:
        case Intrinsic::bswap:
        case Intrinsic::uadd_sat:
        case Intrinsic::usub_sat:
        case Intrinsic::sadd_sat:
        case Intrinsic::ssub_sat:
          break;
        default:
          return true;
        }
      } else if (isa<CmpInst>(X)) {
        continue; // a flag
      } else if (!isa<BinaryOperator>(X) && !isa<CastInst>(X) && !isa<PHINode>(X) && !isa<SelectInst>(X) &&
                 !isa<FreezeInst>(X) && !isa<ExtractElementInst>(X) && !isa<InsertElementInst>(X) &&
                 !isa<ShuffleVectorInst>(X)) {
        return true; // a call, an aggregate: not followed
      }
      unsigned Op = Operator::getOpcode(X);
      bool Scales = Scaled || Op == Instruction::Shl || Op == Instruction::Mul;
      auto *Us = cast<User>(X);
      for (unsigned i = isa<SelectInst>(X) ? 1 : 0, E = Us->getNumOperands(); i != E; ++i) {
        const Value *O = Us->getOperand(i);
        if (O->getType()->isFPOrFPVectorTy())
          return true; // bits through a float: an enum slot holding either
        if (O->getType()->isIntOrIntVectorTy() && !(isa<ExtractElementInst>(X) && i == 1) &&
            !(isa<InsertElementInst>(X) && i == 2))
          Work.push_back({O, Scales});
      }
    }
    return false;
  }

  void step(Record &Rec, const Access &X, bool &Changed) {
    if (Rec.Anywhere)
      return;
    bool Address = true;
    int64_t Size = 0;
    if (auto *SI = dyn_cast<StoreInst>(X.I)) {
      Size = DL.getTypeStoreSize(SI->getValueOperand()->getType());
      Address = !SI->getValueOperand()->getType()->isIntOrIntVectorTy() || mayBeAddress(SI->getValueOperand());
    } else if (auto *MS = dyn_cast<MemSetInst>(X.I)) {
      auto *Len = dyn_cast<ConstantInt>(MS->getLength());
      Size = Len ? Len->getSExtValue() : 0;
      Address = !Len; // a byte pattern, over bytes that are known
    } else if (auto *MT = dyn_cast<MemTransferInst>(X.I)) {
      auto *Len = dyn_cast<ConstantInt>(MT->getLength());
      int64_t SrcOff = 0;
      auto *G = dyn_cast<GlobalVariable>(GetPointerBaseWithConstantOffset(MT->getRawSource(), SrcOff, DL));
      Size = Len ? Len->getSExtValue() : 0;
      // Plain integers of a constant (an empty table's zero counters) carry no address.
      Address = !Len || !G || !G->isConstant() || !G->hasDefinitiveInitializer() ||
                pointerWithin(DL, G->getInitializer(), 0, {SrcOff, SrcOff + Size});
    } else {
      return; // a load writes nothing
    }
    if (!Address)
      return;
    if (!X.Off || !Size) {
      Rec.Anywhere = true;
      Changed = true;
      return;
    }
    Range R{*X.Off, *X.Off + Size};
    if (!Rec.tainted(R)) {
      Rec.Tainted.push_back(R);
      Changed = true;
    }
  }
};
} // namespace

bool storesIntoAddressFreeField(const StoreInst *SI) {
  const DataLayout &DL = SI->getDataLayout();
  int64_t Off = 0;
  auto *Base = dyn_cast<AllocaInst>(GetPointerBaseWithConstantOffset(SI->getPointerOperand(), Off, DL));
  // Fewer than 13 significant bits: a byte of a hash, a flag, a small count.
  const Value *V = SI->getValueOperand();
  if (computeKnownBits(V, DL).countMaxActiveBits() <= 12)
    return true;
  // Narrower than an address and computed from no address and no load as wide as one: a
  // B-tree node's u16 length, incremented in place beside the node's child pointers.
  unsigned PtrBits = DL.getPointerSizeInBits();
  if (V->getType()->getScalarSizeInBits() < PtrBits) {
    bool Truncated = false;
    const Value *Wide = findInIntegerSources(
        V,
        [&](const Value *X) -> std::optional<bool> {
          if (isa<PtrToIntOperator>(X) || isa<Argument>(X))
            return true;
          if (isa<LoadInst>(X) || isa<CallBase>(X))
            return X->getType()->getScalarSizeInBits() >= PtrBits;
          return std::nullopt;
        },
        &Truncated);
    if (!Wide && !Truncated)
      return true;
  }
  if (!Base)
    return false;
  FieldTaint T(*SI->getFunction());
  const Record *R = T.record(Base);
  return R && !R->tainted({Off, Off + (int64_t)DL.getTypeStoreSize(SI->getValueOperand()->getType())});
}

} // namespace synthase
