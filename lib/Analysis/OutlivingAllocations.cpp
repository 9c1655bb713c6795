// The addresses of an allocation are followed through the values that may hold them (address
// arithmetic, phis, selects, integers and vectors made of them) and through the memory they are
// stored in. Memory of the function's own (local variables, blocks it allocates) that receives an
// address is followed in turn: loads from it may read an address back, and its own address must
// stay in the function too. The block outlives the call when an address is returned, stored or
// copied into other memory (the caller's, a global), or passed where it may be kept: to a
// callee without a body, or one whose body lets it out (followed eight calls deep; what a callee
// stores into its arguments' memory is followed in the caller).
#include "Analysis/OutlivingAllocations.h"
#include "Reverse/Tape.h"
#include "Rules/Allocators.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace synthase {

namespace {

constexpr unsigned MaxValues = 20000, MaxDepth = 8;

/// Whether a load of type T may read an address back.
bool mayHoldAddress(Type *T) {
  T = T->getScalarType();
  return T->isPointerTy() || (T->isIntegerTy() && T->getIntegerBitWidth() >= 32);
}

/// Unoptimized code keeps each argument in a local variable it stores once and reads back
/// (`this`): a load of such a variable is the stored value's object.
const Value *throughSpill(const Value *O) {
  for (unsigned N = 0; N < 4; ++N) {
    auto *LI = dyn_cast<LoadInst>(O);
    auto *A = LI ? dyn_cast<AllocaInst>(LI->getPointerOperand()) : nullptr;
    if (!A)
      return O;
    const Value *Stored = nullptr;
    for (const User *U : A->users()) {
      if (auto *SI = dyn_cast<StoreInst>(U)) {
        if (SI->getValueOperand() == A || (Stored && Stored != SI->getValueOperand()))
          return O;
        Stored = SI->getValueOperand();
      } else if (!isa<LoadInst>(U) && !isa<IntrinsicInst>(U)) {
        return O;
      }
    }
    if (!Stored)
      return O;
    O = getUnderlyingObject(Stored, 0);
  }
  return O;
}

bool isAllocation(const Value *V) {
  auto *CB = dyn_cast<CallBase>(V);
  std::optional<Allocator> A = CB ? allocatorFor(CB->getCalledFunction()) : std::nullopt;
  return A && A->Role != AllocRole::Free && A->Out < 0;
}

struct Flow {
  unsigned Depth;
  unsigned *Budget; // values followed, shared by the callees' flows
  const Value *Start = nullptr; // the allocation asked about
  /// In a callee: the arguments whose memory received an address.
  SmallVector<unsigned, 2> StoredIntoArgs;
  SmallVector<const Value *, 16> Work;
  SmallPtrSet<const Value *, 32> Seen;
  SmallPtrSet<const Value *, 8> Objects; // the function's own memory that may hold an address
  bool Escapes = false;
  /// In a callee: the call's result may be an address (the argument is returned).
  bool Returned = false;

  Flow(unsigned D, unsigned *B) : Depth(D), Budget(B) {}

  void address(const Value *V) {
    if (V->getType()->isFPOrFPVectorTy() || V->getType()->isIntOrIntVectorTy(1))
      return; // a float or a flag made from loaded integers is no address
    if (*Budget == 0)
      Escapes = true; // too large to follow: keep the shadow
    else if (Seen.insert(V).second) {
      --*Budget;
      Work.push_back(V);
    }
  }
  /// Memory at P receives an address.
  void storedInto(const Value *P) {
    SmallVector<const Value *, 4> Objs;
    getUnderlyingObjects(P, Objs, nullptr, 0);
    for (const Value *O : Objs) {
      O = throughSpill(O);
      // A lowered gradient's tape inside differentiated code is its own (a private arena).
      auto *TapeCall = dyn_cast<CallBase>(O);
      bool Tape = TapeCall && TapeCall->getCalledFunction() &&
                  TapeCall->getCalledFunction()->hasFnAttribute(TapeRuntimeAttr);
      if (auto *A = dyn_cast<Argument>(O); A && Depth > 0) {
        if (!is_contained(StoredIntoArgs, A->getArgNo()))
          StoredIntoArgs.push_back(A->getArgNo()); // the caller's memory: followed there
        continue;
      }
      if (!isa<AllocaInst>(O) && !isAllocation(O) && !Tape) {
        if (getenv("SYNTHASE_DEBUG_OUTLIVE"))
          errs() << "outlives: stored into " << *O << "\n";
        Escapes = true;
        return;
      }
      if (!Tape && Objects.insert(O).second)
        address(O);
    }
  }
  void passed(const CallBase *CB, unsigned K) {
    const Function *F = CB->getCalledFunction();
    if (CB->doesNotCapture(K) && (isa<IntrinsicInst>(CB) || (CB->onlyReadsMemory(K) && CB->getType()->isVoidTy() &&
                                                              CB->onlyAccessesArgMemory())))
      return; // prefetch, masked loads and stores
    if (!F || F->isDeclaration() || F->isVarArg() || K >= F->arg_size() || Depth >= MaxDepth) {
      Escapes = true;
      return;
    }
    Flow Inner(Depth + 1, Budget);
    Inner.Start = Start;
    Inner.address(F->getArg(K));
    if (Inner.run()) {
      Escapes = true;
      return;
    }
    if (Inner.Returned)
      address(CB);
    for (unsigned J : Inner.StoredIntoArgs)
      if (J < CB->arg_size())
        storedInto(CB->getArgOperand(J));
      else
        Escapes = true;
  }
  void visit(const Value *V) {
    for (const User *U : V->users()) {
      auto *I = dyn_cast<Instruction>(U);
      if (!I)
        continue;
      if (isa<GetElementPtrInst>(I) || isa<CastInst>(I) || isa<PHINode>(I) || isa<SelectInst>(I) ||
          isa<FreezeInst>(I) || isa<BinaryOperator>(I) || isa<InsertElementInst>(I) || isa<ExtractElementInst>(I) ||
          isa<ShuffleVectorInst>(I) || isa<InsertValueInst>(I) || isa<ExtractValueInst>(I)) {
        address(I);
      } else if (isa<ReturnInst>(I)) {
        if (Depth == 0)
          Escapes = true;
        else
          Returned = true;
      } else if (auto *SI = dyn_cast<StoreInst>(I)) {
        if (SI->getValueOperand() == V && !SI->getMetadata(TapePushMD))
          storedInto(SI->getPointerOperand());
      } else if (auto *LI = dyn_cast<LoadInst>(I)) {
        if (mayHoldAddress(LI->getType()))
          address(LI);
      } else if (auto *RMW = dyn_cast<AtomicRMWInst>(I)) {
        if (RMW->getValOperand() == V)
          Escapes = true;
        else if (mayHoldAddress(RMW->getType()))
          address(RMW);
      } else if (auto *CX = dyn_cast<AtomicCmpXchgInst>(I)) {
        if (CX->getPointerOperand() != V)
          Escapes = true;
        else
          address(CX);
      } else if (auto *MT = dyn_cast<MemTransferInst>(I)) {
        if (MT->getRawSource() == V)
          storedInto(MT->getRawDest());
      } else if (auto *CB = dyn_cast<CallBase>(I)) {
        if (isa<MemSetInst>(CB) || isa<DbgInfoIntrinsic>(CB))
          continue;
        if (auto *II = dyn_cast<IntrinsicInst>(CB);
            II && (II->isAssumeLikeIntrinsic() || II->getIntrinsicID() == Intrinsic::lifetime_start ||
                   II->getIntrinsicID() == Intrinsic::lifetime_end))
          continue;
        // A sanitizer's check reports the address and keeps nothing.
        const Function *Callee = CB->getCalledFunction();
        if (CB->getMetadata(LLVMContext::MD_nosanitize) ||
            (Callee && (Callee->getName().starts_with("__ubsan_") || Callee->getName().starts_with("__asan_"))))
          continue;
        std::optional<Allocator> A = allocatorFor(Callee);
        if (A && A->Role == AllocRole::Free)
          continue; // released
        if (A && A->Role == AllocRole::Alloc && (CB == Start || !(A->Out >= 0 && CB->getArgOperand(A->Out) == V)))
          continue; // a size computed from addresses (a vector's growth), or posix_memalign's own write
        if (isa<IntrinsicInst>(CB) && CB->doesNotAccessMemory()) {
          address(CB); // umax of two ends, ptrmask
          continue;
        }
        if (A && A->Role == AllocRole::Realloc) {
          // The block itself is released; the new one gets its contents, which matter when
          // they are addresses (a local block that received one).
          if (getUnderlyingObject(V, 0) != Start)
            storedInto(CB);
          continue;
        }
        if (CB->getCalledOperand() == V) {
          Escapes = true;
          continue;
        }
        for (unsigned K = 0; K < CB->arg_size() && !Escapes; ++K)
          if (CB->getArgOperand(K) == V)
            passed(CB, K);
      } else if (!isa<CmpInst>(I) && !isa<BranchInst>(I) && !isa<SwitchInst>(I)) {
        Escapes = true; // not followed
      }
      if (Escapes) {
        if (getenv("SYNTHASE_DEBUG_OUTLIVE"))
          errs() << "outlives at depth " << Depth << ": " << *I << "\n";
        return;
      }
    }
  }
  bool run() {
    while (!Escapes && !Work.empty())
      visit(Work.pop_back_val());
    return Escapes;
  }
};

} // namespace

bool allocationMayOutlive(const CallBase *Alloc) {
  std::optional<Allocator> A = allocatorFor(Alloc->getCalledFunction());
  unsigned Budget = MaxValues;
  Flow F(0, &Budget);
  F.Start = Alloc;
  if (A && A->Out >= 0)
    F.storedInto(Alloc->getArgOperand(A->Out)); // posix_memalign writes the address there
  else
    F.storedInto(Alloc);
  return F.run();
}

} // namespace synthase
