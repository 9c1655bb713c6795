#include "Analysis/UnshadowedMemory.h"
#include "Analysis/TypedCopies.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Operator.h"
#include "Analysis/UserAnnotations.h"
#include "Rules/Allocators.h"
#include "Rules/NodeLinks.h"
#include "Rules/Rules.h"
#include "Support/Diagnostics.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "Analysis/MemoryLayout.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include <functional>

using namespace llvm;

namespace synthase {

static bool isLocalObject(const Value *U) {
  if (isa<AllocaInst>(U) || isa<GlobalVariable>(U))
    return true;
  if (auto *CB = dyn_cast<CallBase>(U))
    return isAllocator(CB->getCalledFunction()) || CB->returnDoesNotAlias();
  return false;
}

/// Visits every pointer derived from Base inside F (through GEPs, casts, phis and selects) and
/// asks Visit about each user; stops early when Visit returns true.
static bool anyDerivedUse(const Value *Base, function_ref<bool(const Use &)> Visit) {
  SmallVector<const Value *, 16> Work{Base};
  SmallPtrSet<const Value *, 32> Seen{Base};
  while (!Work.empty()) {
    const Value *V = Work.pop_back_val();
    for (const Use &U : V->uses()) {
      auto *I = dyn_cast<Instruction>(U.getUser());
      if (!I)
        return true; // a constant expression user: too clever to follow, assume the worst
      if (isa<GetElementPtrInst>(I) || isa<CastInst>(I) || isa<PHINode>(I) || isa<SelectInst>(I) ||
          isa<FreezeInst>(I)) {
        if (Seen.insert(I).second)
          Work.push_back(I);
        continue;
      }
      if (Visit(U))
        return true;
    }
  }
  return false;
}

bool unshadowedWriteIsHarmless(const Function &F, const Value *Ptr) {
  const Value *U = getUnderlyingObject(Ptr, 12);
  if (isInactiveGlobal(dyn_cast<GlobalVariable>(U)))
    return true; // the user said it holds no derivative data
  if (!isLocalObject(U))
    return false;
  if (auto *G = dyn_cast<GlobalVariable>(U))
    if (!G->hasLocalLinkage())
      return false; // other code may read it after F returns
  return !anyDerivedUse(U, [&](const Use &Us) {
    auto *I = cast<Instruction>(Us.getUser());
    if (isa<LoadInst>(I))
      return true;
    if (auto *SI = dyn_cast<StoreInst>(I))
      return SI->getValueOperand() == Us.get(); // the address escapes into memory
    if (isa<ICmpInst>(I) || isa<PtrToIntInst>(I))
      return false;
    if (auto *MI = dyn_cast<MemIntrinsic>(I))
      return isa<MemTransferInst>(MI) && cast<MemTransferInst>(MI)->getSource() == Us.get();
    if (auto *CB = dyn_cast<CallBase>(I)) {
      if (isIgnorableIntrinsic(I))
        return false;
      std::optional<Allocator> A = allocatorFor(CB->getCalledFunction());
      return !(A && A->Role == AllocRole::Free);
    }
    return true;
  });
}

bool mayHoldDerivatives(const Function &F, const Value *Ptr, function_ref<bool(const Value *)> HasShadow) {
  if (!HasShadow(Ptr))
    return false;
  const Value *U = getUnderlyingObject(Ptr, 12);
  if (isa<Argument>(U))
    return true;
  return anyDerivedUse(U, [&](const Use &Us) {
    auto *I = cast<Instruction>(Us.getUser());
    if (auto *LI = dyn_cast<LoadInst>(I))
      return LI->getType()->getScalarType()->isFloatingPointTy() || LI->getType()->isAggregateType();
    if (auto *SI = dyn_cast<StoreInst>(I))
      return SI->getPointerOperand() == Us.get() &&
             (SI->getValueOperand()->getType()->getScalarType()->isFloatingPointTy() ||
              SI->getValueOperand()->getType()->isAggregateType());
    if (auto *CB = dyn_cast<CallBase>(I))
      return !isa<MemIntrinsic>(I) && !isIgnorableIntrinsic(I) &&
             !isAllocator(CB->getCalledFunction());
    return false;
  });
}

void refuseUnshadowedWrite(const Function *Fn, const Instruction *I, const Value *Ptr, bool IsPointer) {
  const Value *U = getUnderlyingObject(Ptr, 12);
  std::string What = IsPointer ? "a pointer to differentiated memory is stored"
                     : isa<MemTransferInst>(I) ? "differentiated data is copied"
                                               : "an active value is stored";
  std::string From, Hint;
  if (auto *A = dyn_cast<Argument>(U)) {
    From = "argument " + std::to_string(A->getArgNo() + 1) +
           (A->hasName() ? " '" + A->getName().str() + "'" : std::string()) + ", passed without a shadow";
    Hint = "pass this argument with enzyme_dup and a shadow buffer (a scratch workspace needs a "
           "shadow too); enzyme_const memory must not receive active data";
  } else if (auto *L = dyn_cast<LoadInst>(U)) {
    From = "a pointer loaded from memory that has no shadow (" + printInstruction(L) + ")";
    const Value *Addr = getUnderlyingObject(L->getPointerOperand(), 12);
    auto *TLA = dyn_cast<IntrinsicInst>(Addr);
    if (TLA && TLA->getIntrinsicID() == Intrinsic::threadlocal_address)
      Addr = TLA->getArgOperand(0);
    auto *G = dyn_cast<GlobalVariable>(Addr);
    if (G && G->isThreadLocal() && G->getValueType()->isPointerTy())
      Hint = "thread-local global '" + G->getName().str() + "' holds a pointer assigned at run time; "
             "only a global that is not thread-local gets a shadow block for the heap block it points "
             "to: use a thread-local array of fixed size, or pass the buffer in with enzyme_dup";
    else if (G && !G->isConstant() && !G->getValueType()->isPointerTy())
      Hint = "global '" + G->getName().str() + "' holds a pointer assigned at run time inside an aggregate "
             "(a workspace struct or array of buffers) to something other than a whole heap block (a "
             "pointer into a block, a local, or a field chosen at run time), which gets no shadow: "
             "assign the field the block malloc returns, or pass the buffer in with enzyme_dup";
    else
      Hint = "the pointer is read from memory without a shadow: a field of an enzyme_const struct (pass "
             "that struct with enzyme_dup, its shadow's pointer fields pointing at shadow buffers), or a "
             "thread-local or static container (a thread_local std::vector, Rust's thread_local! "
             "RefCell<Vec<f64>>), whose buffer gets no shadow (keep the scratch local to the function, or "
             "pass it in with enzyme_dup)";
  } else if (auto *CB = dyn_cast<CallBase>(U)) {
    const Function *G = CB->getCalledFunction();
    From = "the result of a call to '" + (G ? displayName(G->getName()) : std::string("<indirect>")) + "'";
    Hint = "Synthase does not know this function as an allocator: register it with "
           "__enzyme_allocation_like, or allocate the memory with malloc/new";
  } else if (auto *G = dyn_cast<GlobalVariable>(U)) {
    From = "global '" + G->getName().str() + "', which has no shadow";
    Hint = "a constant global, or one whose type holds no floating-point data, gets no shadow: "
           "declare it with its real element type, or pass the buffer in with enzyme_dup";
  } else {
    From = printInstruction(U);
    Hint = "pass this memory in with enzyme_dup so that it has a shadow";
  }
  reportError(Fn, I, What + " into memory that has no shadow, so its derivative would be lost (the memory: " +
                         From + ")",
              Hint);
}

/// Whether the integer I turns into an address (or stores) went through a floating-point value
/// on some path: a pointer and an f64 sharing one slot of an enum.
static bool addressThroughFloat(const Instruction *I) {
  const Value *V = isa<StoreInst>(I) ? cast<StoreInst>(I)->getValueOperand() : I->getOperand(0);
  SmallVector<const Value *, 8> Work{V};
  SmallPtrSet<const Value *, 16> Seen;
  while (!Work.empty() && Seen.size() < 64) {
    const Value *X = Work.pop_back_val();
    if (!Seen.insert(X).second)
      continue;
    unsigned Op = Operator::getOpcode(X);
    if (Op == Instruction::BitCast && cast<User>(X)->getOperand(0)->getType()->isFPOrFPVectorTy())
      return true;
    if (Instruction::isBinaryOp(Op) || Instruction::isCast(Op) || Op == Instruction::PHI || Op == Instruction::Select)
      for (const Use &U : cast<User>(X)->operands())
        if (U->getType()->isIntOrIntVectorTy())
          Work.push_back(U.get());
  }
  return false;
}

static const char *const UnionHint =
    "keep heap data and floats in different variants' slots: return the Vec or the float through a "
    "separate value (an out-parameter, a tuple), or give the error type no f64 payload";

void refusePointerOrFloat(const Function *Fn, const Instruction *I) {
  reportError(Fn, I,
              "these bytes of differentiated memory are used both as an address and as a float (one slot "
              "holding either a pointer or a float, as the optimizer types a Rust enum such as Result<f64, "
              "E> whose error owns a String or Vec), so the float's derivative would be lost",
              UnionHint);
}

void refuseRebuiltAddress(const Function *Fn, const Instruction *I) {
  if (addressThroughFloat(I)) {
    reportError(Fn, I,
                "the address of differentiated memory is carried through a floating-point value (one "
                "slot holding either a pointer or a float, as the optimizer types a Rust enum such as "
                "Result<f64, E> or Result<Vec<f64>, E> whose variants hold a Vec, String or f64), and "
                "its shadow cannot be told from the float's derivative, so its derivative would be lost",
                UnionHint);
    return;
  }
  reportError(Fn, I,
              "a pointer is rebuilt from an integer that holds the address of differentiated memory in a way "
              "its shadow cannot follow (tag bits, an address kept in memory after integer arithmetic), so "
              "its derivative would be lost",
              "keep such addresses as pointers; uintptr_t arithmetic is followed when it only offsets or "
              "rounds one pointer computed in the same function");
}

} // namespace synthase

namespace synthase {

/// A pointer whose shadow may be null although it is not: it has no shadow, or it merges (phi,
/// select) or is derived from one that has none, e.g. `i % 2 ? x : constant_table`, whose shadow
/// is a select of x's shadow and null.
static bool mayHaveNullShadow(const Value *V, function_ref<bool(const Value *)> HasShadow) {
  SmallVector<const Value *, 8> Work{V};
  SmallPtrSet<const Value *, 16> Seen{V};
  while (!Work.empty()) {
    const Value *P = Work.pop_back_val();
    if (isa<ConstantPointerNull>(P) || (isa<Constant>(P) && cast<Constant>(P)->isNullValue()) || isa<UndefValue>(P))
      continue;
    if (!HasShadow(P))
      return true;
    SmallVector<const Value *, 4> Next;
    if (auto *S = dyn_cast<SelectInst>(P))
      Next = {S->getTrueValue(), S->getFalseValue()};
    else if (auto *Phi = dyn_cast<PHINode>(P))
      Next.append(Phi->op_begin(), Phi->op_end());
    else if (isa<GetElementPtrInst>(P) || isa<BitCastInst>(P) || isa<AddrSpaceCastInst>(P) || isa<FreezeInst>(P))
      Next.push_back(cast<Instruction>(P)->getOperand(0));
    for (const Value *N : Next)
      if (N->getType()->isPtrOrPtrVectorTy() && Seen.insert(N).second)
        Work.push_back(N);
  }
  return false;
}

bool mayStoreNullShadows(const Function &F, function_ref<bool(const Value *)> HasShadow) {
  for (const Instruction &I : instructions(F)) {
    if (auto *SI = dyn_cast<StoreInst>(&I)) {
      const Value *V = SI->getValueOperand();
      if (const Value *P = storedPointerBits(V))
        V = P;
      if (V->getType()->isPtrOrPtrVectorTy() && HasShadow(SI->getPointerOperand()) &&
          mayHaveNullShadow(V, HasShadow))
        return true;
    } else if (auto *MT = dyn_cast<MemTransferInst>(&I)) {
      if (HasShadow(MT->getDest()) && !HasShadow(MT->getSource()))
        return true;
    } else if ((isa<PHINode>(&I) || isa<SelectInst>(&I)) && I.getType()->isPointerTy() && HasShadow(&I) &&
               mayHaveNullShadow(&I, HasShadow)) {
      return true; // a merge with a pointer that has no shadow: its shadow is null on that way
    } else if (auto *CB = dyn_cast<CallBase>(&I)) {
      // A bodiless callee that is not differentiated (a known-inactive library call: the
      // constructor of a std::stringstream) may fill the primal object with pointers its shadow
      // never receives.
      const Function *G = CB->getCalledFunction();
      if (G && G->isDeclaration() && !G->isIntrinsic() && !isAllocator(G) && !isNodeLinkHelper(G) &&
          any_of(CB->args(), [&](const Use &U) { return U->getType()->isPointerTy() && HasShadow(U.get()); }))
        return true;
    }
  }
  return false;
}

Value *lengthUnlessNullShadow(IRBuilderBase &B, Value *Len, ArrayRef<Value *> Shadows) {
  Value *Null = nullptr;
  for (Value *S : Shadows) {
    Value *N = B.CreateICmpULT(B.CreatePtrToInt(S, B.getInt64Ty()), B.getInt64(1 << 16));
    Null = Null ? B.CreateOr(Null, N) : N;
  }
  return Null ? B.CreateSelect(Null, Constant::getNullValue(Len->getType()), Len) : Len;
}

Value *keepShadowNull(IRBuilderBase &B, Value *Shadow, Value *RootShadow) {
  Type *T = Shadow->getType();
  Value *IsNull;
  if (RootShadow && RootShadow->getType()->isPointerTy()) {
    IsNull = B.CreateIsNull(RootShadow);
  } else {
    Type *IntT = B.getInt64Ty();
    if (auto *VT = dyn_cast<VectorType>(T))
      IntT = VectorType::get(IntT, VT->getElementCount());
    IsNull = B.CreateICmpULT(B.CreatePtrToInt(Shadow, IntT), ConstantInt::get(IntT, 1 << 16));
  }
  return B.CreateSelect(IsNull, Constant::getNullValue(T), Shadow, "shadow.keepnull");
}

NullRoot nullRootOf(Value *Ptr, bool ArgsMaybeNull, function_ref<bool(const Value *)> HasShadow) {
  NullRoot R;
  bool ThroughMerge = false, OtherLeaf = false, Unshadowed = false;
  SmallVector<Value *, 8> Work{Ptr};
  SmallPtrSet<Value *, 16> Seen{Ptr};
  while (!Work.empty()) {
    Value *V = Work.pop_back_val();
    Value *Next = nullptr;
    if (auto *G = dyn_cast<GEPOperator>(V))
      Next = G->getPointerOperand();
    else if (isa<BitCastInst>(V) || isa<AddrSpaceCastInst>(V) || isa<FreezeInst>(V))
      Next = cast<Instruction>(V)->getOperand(0);
    if (Next) {
      if (Seen.insert(Next).second)
        Work.push_back(Next);
      continue;
    }
    if (isa<PHINode>(V) || isa<SelectInst>(V)) {
      ThroughMerge = true;
      for (Value *In : isa<PHINode>(V) ? SmallVector<Value *, 4>(cast<PHINode>(V)->incoming_values())
                                      : SmallVector<Value *, 4>{cast<SelectInst>(V)->getTrueValue(),
                                                                cast<SelectInst>(V)->getFalseValue()})
        if (Seen.insert(In).second)
          Work.push_back(In);
      continue;
    }
    auto *CB = dyn_cast<CallBase>(V);
    bool MaybeNull = (isa<LoadInst>(V) && V->getType()->isPointerTy()) || isa<ExtractElementInst>(V) ||
                     (isa<IntToPtrInst>(V) && loadedPointerBits(cast<IntToPtrInst>(V))) ||
                     (CB && V->getType()->isPointerTy() && !isAllocator(CB->getCalledFunction())) ||
                     (ArgsMaybeNull && isa<Argument>(V) && V->getType()->isPointerTy());
    if (!MaybeNull) {
      OtherLeaf = true; // arguments, allocations, globals: their shadows are never null
      // ...unless it has none: `c ? w : x + 1` with x constant has the shadow `c ? dw : null`.
      Unshadowed |= HasShadow && !isa<ConstantPointerNull>(V) && !HasShadow(V);
      continue;
    }
    if (R.K == NullRoot::Root && R.V != V)
      return {NullRoot::Unknown, nullptr};
    R = {NullRoot::Root, V};
  }
  // Through a phi or select, the root tells null-ness only if every way of forming the address
  // starts from it (a pointer stepped through a loop); a merge with other pointers is Unknown.
  if ((R.K == NullRoot::Root && ThroughMerge && OtherLeaf) || (ThroughMerge && Unshadowed))
    return {NullRoot::Unknown, nullptr};
  return R;
}

} // namespace synthase

namespace synthase {

bool intToPtrOfScaledInteger(const IntToPtrInst *I) {
  auto *BO = dyn_cast<BinaryOperator>(I->getOperand(0));
  if (!BO)
    return false;
  auto *C = dyn_cast<ConstantInt>(BO->getOperand(1));
  if (!C && BO->getOpcode() == Instruction::Mul)
    C = dyn_cast<ConstantInt>(BO->getOperand(0));
  if (!C)
    return false;
  return (BO->getOpcode() == Instruction::Shl && !C->isZero()) ||
         (BO->getOpcode() == Instruction::Mul && C->getValue().ugt(1));
}

Value *intToPtrBase(const IntToPtrInst *I) {
  Value *Base = nullptr;
  SmallVector<const Value *, 8> Work{I->getOperand(0)};
  SmallPtrSet<const Value *, 16> Seen;
  while (!Work.empty()) {
    const Value *V = Work.pop_back_val();
    if (!Seen.insert(V).second || Seen.size() > 32)
      continue;
    if (auto *P2I = dyn_cast<PtrToIntInst>(V)) {
      if (Base && Base != P2I->getOperand(0))
        return nullptr; // the difference of two pointers: no single base
      Base = P2I->getOperand(0);
      continue;
    }
    if (isa<Constant>(V) || isa<Argument>(V))
      continue; // an alignment or offset passed in (an aligned-allocation wrapper left out of line)
    auto *BO = dyn_cast<BinaryOperator>(V);
    bool Carries = BO && (BO->getOpcode() == Instruction::Add || BO->getOpcode() == Instruction::Sub ||
                          BO->getOpcode() == Instruction::And || BO->getOpcode() == Instruction::Or);
    if (!Carries) {
      // An offset computed without any address (`8 * i`, a widened index) leaves the base alone.
      if (!pointerBitsIn(V, [](const Value *) { return true; }) && !isa<LoadInst>(V) && !isa<CallBase>(V))
        continue;
      return nullptr;
    }
    // Only one operand may carry the pointer; the other must be a constant or an offset that
    // does not come from a pointer (checked when it is visited).
    Work.push_back(BO->getOperand(0));
    Work.push_back(BO->getOperand(1));
  }
  return Base;
}

Value *intToPtrShadow(IRBuilder<> &B, const IntToPtrInst *I, Value *Base, Value *ShadowBase,
                      function_ref<Value *(Value *)> Primal) {
  Value *Addr = I->getOperand(0);
  Type *IT = Addr->getType();
  bool Rounded = false;
  SmallVector<const Value *, 8> Work{Addr};
  SmallPtrSet<const Value *, 16> Seen;
  while (!Work.empty()) {
    auto *BO = dyn_cast<BinaryOperator>(Work.pop_back_val());
    if (!BO || !Seen.insert(BO).second)
      continue;
    Rounded |= BO->getOpcode() == Instruction::And || BO->getOpcode() == Instruction::Or;
    Work.append({BO->getOperand(0), BO->getOperand(1)});
  }
  if (!Rounded) {
    Value *Off = B.CreateSub(Primal(Addr), B.CreatePtrToInt(Primal(Base), IT));
    return B.CreateGEP(B.getInt8Ty(), ShadowBase, Off, I->getName() + ".shadow");
  }
  DenseMap<const Value *, Value *> Done;
  std::function<Value *(Value *)> Rebuild = [&](Value *V) -> Value * {
    if (Value *K = Done.lookup(V))
      return K;
    Value *R;
    if (auto *P2I = dyn_cast<PtrToIntInst>(V); P2I && P2I->getOperand(0) == Base)
      R = B.CreatePtrToInt(ShadowBase, P2I->getType());
    else if (auto *BO = dyn_cast<BinaryOperator>(V))
      R = B.CreateBinOp(BO->getOpcode(), Rebuild(BO->getOperand(0)), Rebuild(BO->getOperand(1)));
    else
      R = isa<Constant>(V) ? V : Primal(V);
    return Done[V] = R;
  };
  return B.CreateIntToPtr(Rebuild(Addr), I->getType(), I->getName() + ".shadow");
}

} // namespace synthase

namespace synthase {
Value *storedPointerBits(const Value *V) {
  auto *P2I = dyn_cast<PtrToIntInst>(V);
  if (!P2I || !P2I->getSrcTy()->isPointerTy())
    return nullptr;
  const DataLayout &DL = P2I->getDataLayout();
  if (DL.getTypeSizeInBits(P2I->getType()) != DL.getTypeSizeInBits(P2I->getSrcTy()))
    return nullptr;
  return const_cast<Value *>(P2I->getPointerOperand());
}

LoadInst *loadedPointerBits(const IntToPtrInst *I) {
  auto *L = dyn_cast<LoadInst>(I->getOperand(0));
  if (!L || L->isVolatile() || L->isAtomic())
    return nullptr;
  const DataLayout &DL = I->getDataLayout();
  return DL.getTypeSizeInBits(L->getType()) == DL.getTypeSizeInBits(I->getType()) ? L : nullptr;
}

const Value *findInIntegerSources(const Value *V, function_ref<std::optional<bool>(const Value *)> Leaf,
                                  bool *Truncated) {
  SmallVector<const Value *, 8> Work{V};
  SmallPtrSet<const Value *, 16> Seen;
  while (!Work.empty()) {
    const Value *X = Work.pop_back_val();
    if (!Seen.insert(X).second)
      continue;
    if (Seen.size() > 64) {
      if (Truncated)
        *Truncated = true;
      return nullptr;
    }
    if (std::optional<bool> R = Leaf(X)) {
      if (*R)
        return X;
      continue;
    }
    unsigned Op = Operator::getOpcode(X); // instructions and constant expressions alike
    if (!Instruction::isBinaryOp(Op) && !Instruction::isCast(Op) && Op != Instruction::PHI &&
        Op != Instruction::Select && Op != Instruction::Freeze)
      continue;
    // Bits may pass through a float unchanged: SROA types a Rust enum's payload slot (a Vec's
    // pointer or an f64) as double, so an address can be bitcast to a double, merged in a phi
    // of doubles and bitcast back. Float arithmetic ends the trail.
    bool Moves = Op == Instruction::BitCast || Op == Instruction::PHI || Op == Instruction::Select ||
                 Op == Instruction::Freeze;
    for (const Use &U : cast<User>(X)->operands())
      if (U->getType()->isIntOrIntVectorTy() || (Moves && U->getType()->isFPOrFPVectorTy()))
        Work.push_back(U.get());
  }
  return nullptr;
}

const Value *pointerBitsIn(const Value *V, function_ref<bool(const Value *)> Shadowed) {
  const Value *Found = findInIntegerSources(V, [&](const Value *X) -> std::optional<bool> {
    if (auto *P = dyn_cast<PtrToIntOperator>(X))
      return Shadowed(P->getPointerOperand());
    return std::nullopt;
  });
  return Found ? cast<PtrToIntOperator>(Found)->getPointerOperand() : nullptr;
}

/// Whether A and B are the same address: one base and one constant offset.
static bool sameLocation(const Value *A, const Value *B) {
  const DataLayout *DL = nullptr;
  if (auto *I = dyn_cast<Instruction>(A))
    DL = &I->getDataLayout();
  else if (auto *I = dyn_cast<Instruction>(B))
    DL = &I->getDataLayout();
  if (!DL)
    return A == B;
  int64_t OA = 0, OB = 0;
  const Value *BA = GetPointerBaseWithConstantOffset(A, OA, *DL);
  const Value *BB = GetPointerBaseWithConstantOffset(B, OB, *DL);
  return BA == BB && OA == OB;
}

/// Whether SI writes an integer field its record's type tells from the pointers beside it (a Rust
/// Vec's capacity or length) with a value made of no address: integer data, even in an object
/// that also keeps addresses as integers.
static bool storesTypedCount(const StoreInst *SI) {
  const Value *V = SI->getValueOperand();
  if (!V->getType()->isIntegerTy() || !typedIntegerField(SI->getPointerOperand(), SI->getDataLayout().getTypeStoreSize(V->getType())))
    return false;
  return !mayCarryAddress(V, SI->getPointerOperand(), true);
}

/// The integer SI stores lands beside the object's addresses, never on one: every address slot
/// is at a known offset (here or in a callee that is walked) and none overlaps the bytes written.
/// Rust's String keeps its capacity (computed) beside its buffer's address (read back as an
/// integer when the optimizer merges the Ok and Err paths of a Result<f64, String>).
static bool storesBesideAddresses(const StoreInst *SI, const MemoryLayout &Dest) {
  if (Dest.PointerAtUnknownOffset || Dest.HiddenUse)
    return false;
  const DataLayout &DL = SI->getDataLayout();
  int64_t Size = DL.getTypeStoreSize(SI->getValueOperand()->getType()).getFixedValue();
  auto Overlaps = [&](const std::pair<const int64_t, Type *> &F) {
    return F.second->isPointerTy() && F.first < Size &&
           F.first + (int64_t)DL.getTypeStoreSize(F.second).getFixedValue() > 0;
  };
  return none_of(Dest.Fields, Overlaps) && none_of(Dest.Alternates, Overlaps);
}

bool storesRebuiltAddress(const StoreInst *SI, const MemoryLayout &Dest) {
  const Value *V = SI->getValueOperand();
  return Dest.AddressIntegers && V->getType()->isIntOrIntVectorTy() && !isa<Constant>(V) && !isa<LoadInst>(V) &&
         !storedPointerBits(V) && !storesTypedCount(SI) && !storesBesideAddresses(SI, Dest) &&
         !storesIntoAddressFreeField(SI);
}

bool mayMirrorInteger(const StoreInst *SI, const MemoryLayout &Dest) {
  if (Dest.AddressIntegers)
    return storesTypedCount(SI);
  return !mayCarryAddress(SI->getValueOperand(), SI->getPointerOperand(), storesIntegerField(SI));
}

bool mayCarryAddress(const Value *V, const Value *Dest, bool IntoIntegerField) {
  const Value *DestObj = getUnderlyingObject(Dest);
  bool Truncated = false;
  const Value *Found = findInIntegerSources(
      V,
      [&](const Value *X) -> std::optional<bool> {
        if (isa<PtrToIntOperator>(X))
          return true;
        // A field the front end typed as an integer (a buffer's count copied into its
        // capacity) holds no address.
        if (auto *L = dyn_cast<LoadInst>(X))
          // So does a sibling of an integer field in the same object (b->cap = b->n).
          return loadsPointerBits(L) ||
                 (!sameLocation(L->getPointerOperand(), Dest) && !tbaaReadsInteger(L) && !movesNoDerivativeData(L) &&
                  !(IntoIntegerField && getUnderlyingObject(L->getPointerOperand()) == DestObj) &&
                  !typedIntegerField(L->getPointerOperand(), L->getDataLayout().getTypeStoreSize(L->getType())));
        return std::nullopt;
      },
      &Truncated);
  return Found || Truncated;
}

const LoadInst *maskedPointerBits(const IntToPtrInst *I) {
  const Value *V = I->getOperand(0);
  bool Combined = false;
  while (auto *BO = dyn_cast<BinaryOperator>(V)) {
    if (!isa<Constant>(BO->getOperand(1)))
      return nullptr;
    V = BO->getOperand(0);
    Combined = true;
  }
  auto *L = dyn_cast<LoadInst>(V);
  const DataLayout &DL = I->getDataLayout();
  return Combined && L && DL.getTypeSizeInBits(L->getType()) == DL.getTypeSizeInBits(I->getType()) ? L : nullptr;
}

bool expandPointerMasks(Function &F) {
  SmallVector<IntrinsicInst *, 4> Masks;
  for (Instruction &I : instructions(F))
    if (auto *II = dyn_cast<IntrinsicInst>(&I); II && II->getIntrinsicID() == Intrinsic::ptrmask &&
                                                 II->getType()->isPointerTy())
      Masks.push_back(II);
  for (IntrinsicInst *II : Masks) {
    IRBuilder<> B(II);
    Value *P = II->getArgOperand(0), *M = II->getArgOperand(1);
    Value *Addr = B.CreatePtrToInt(P, M->getType());
    Value *Off = B.CreateSub(B.CreateAnd(Addr, M), Addr);
    II->replaceAllUsesWith(B.CreateGEP(B.getInt8Ty(), P, Off, II->getName()));
    II->eraseFromParent();
  }
  return !Masks.empty();
}

bool loadsPointerBits(const LoadInst *L) {
  return any_of(L->users(), [&](const User *U) {
    auto *I2P = dyn_cast<IntToPtrInst>(U);
    return I2P && loadedPointerBits(I2P) == L;
  });
}
} // namespace synthase
