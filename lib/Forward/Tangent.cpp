// Forward mode: the tangent function carries, next to every primal value, its tangent in each lane
// of the vector width. Tangents are created right after the primal instruction they belong to,
// so the primal and its derivative share one pass over the data.
#include "Analysis/TypedCopies.h"
#include "Engine/ShadowAlignment.h"
#include "Analysis/InertMemory.h"
#include "Analysis/FloatFreeMemory.h"
#include "Forward/StringShadows.h"
#include "Analysis/Activity.h"
#include "Analysis/MemoryLayout.h"
#include "llvm/IR/InstIterator.h"
#include "Analysis/UnshadowedMemory.h"
#include "Engine/Clone.h"
#include "Engine/Engine.h"
#include "Engine/FunctionShadows.h"
#include "Engine/Refusals.h"
#include "Rules/Allocators.h"
#include "Rules/MPI.h"
#include "Rules/NodeLinks.h"
#include "Rules/Rules.h"
#include "Rules/CallJacobians.h"
#include "Rules/InactiveLibraryCalls.h"
#include "Rules/OpenMP.h"
#include "Forward/ParallelTangent.h"
#include "Reverse/Tape.h"
#include "Support/Diagnostics.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Operator.h"
#include "llvm/Analysis/ValueTracking.h"

using namespace llvm;

namespace synthase {
namespace {

using Lanes = SmallVector<Value *, 4>;

class TangentGen {
public:
  TangentGen(Engine &E, const Signature &S, Function *Src) : E(E), Sig(S), Src(Src), W(S.Width) {}
  Function *run(Function *NF, ClonedBody &CB);
  ValueToValueMapTy VMap; ///< primal clone: Src value -> value in the generated function

private:
  Engine &E;
  const Signature &Sig;
  Function *Src;
  unsigned W;
  DenseMap<const Value *, Lanes> Tan;
  SmallVector<std::pair<PHINode *, SmallVector<PHINode *, 4>>, 8> PendingPhis;
  SmallPtrSet<const Value *, 4> NoNeedArgs;
  std::optional<SmallPtrSet<const Value *, 8>> LibraryObjects; // see libraryObjects, asked once
  bool readsThrough(const Argument *A);
  bool Failed = false;

  Value *primal(Value *V) {
    auto It = VMap.find(V);
    return It == VMap.end() ? V : (Value *)It->second;
  }
  /// The lanes of V's tangent, or empty when the tangent is zero (or V has no shadow).
  ArrayRef<Value *> lanes(Value *V) {
    auto It = Tan.find(V);
    if (It != Tan.end())
      return It->second;
    if (auto *C = dyn_cast<Constant>(V))
      if (C->getType()->isPointerTy()) {
        Lanes L;
        for (unsigned l = 0; l < W; ++l) {
          Constant *S = E.shadowConstant(C, l);
          if (!S)
            return {};
          L.push_back(S);
        }
        return Tan[V] = L;
      }
    return {};
  }
  Value *lane(Value *V, unsigned l) {
    ArrayRef<Value *> L = lanes(V);
    return L.empty() ? zeroOf(V->getType()) : L[l];
  }
  bool active(Value *V) { return !lanes(V).empty(); }
  /// Integers carry the bytes of moved float data, never a derivative a callee could use.
  bool activeArg(Value *V) { return !V->getType()->isIntOrIntVectorTy() && active(V); }
  /// Integer values that move float (or pointer) data: their tangent is the shadow's bytes.
  ActivityInfo Moves;
  bool movesData(Value *V) { return Moves.IntMoves.count(V) || ByteMoves.count(V); }
  /// See launderedFloatBits: where varied float bits enter the integer arithmetic behind V.
  const Instruction *launderedBits(const Value *V) {
    return launderedFloatBits(
        V, [&](const Value *X) { return active(const_cast<Value *>(X)); },
        [&](const Value *X) {
          return Moves.IntMoves.count(X) && active(const_cast<Value *>(X)) &&
                 floatBitsKnown(E.module().getDataLayout(), X);
        });
  }
  SmallPtrSet<const Value *, 8> ByteMoves;
  void fail(Instruction *I, const Twine &Msg, const Twine &Hint = "") {
    reportError(Sig.Fn, I, Msg, Hint);
    Failed = true;
  }

  /// Shadow pointers loaded from memory may be null (mayStoreNullShadows): lane l of Ptr's
  /// shadow, redirected at run time when it is.
  bool NullShadows = false;
  bool hasShadow(const Value *V) {
    if (auto *C = dyn_cast<Constant>(V))
      return C->getType()->isPointerTy() && E.shadowConstant(const_cast<Constant *>(C)) != nullptr;
    return Moves.isShadowed(V);
  }
  NullRoot nullRoot(Value *P) {
    return nullRootOf(P, Sig.ShadowArgsMaybeNull, [&](const Value *V) { return hasShadow(V); });
  }
  Value *guard(IRBuilder<> &B, Value *Ptr, unsigned l, Type *T, bool Write) {
    NullRoot R = NullShadows ? nullRoot(Ptr) : NullRoot();
    if (R.K == NullRoot::None)
      return lane(Ptr, l);
    Value *Root = R.K == NullRoot::Root && active(R.V) ? lane(R.V, l) : nullptr;
    return E.guardNullShadow(B, lane(Ptr, l), Root, T, Write);
  }
  /// Whether lane l of Ptr's shadow is null at run time; null when it never is.
  Value *shadowIsNull(IRBuilder<> &B, Value *Ptr, unsigned l) {
    NullRoot R = NullShadows ? nullRoot(Ptr) : NullRoot();
    if (R.K == NullRoot::None)
      return nullptr;
    return E.shadowIsNull(B, lane(Ptr, l), R.K == NullRoot::Root && active(R.V) ? lane(R.V, l) : nullptr);
  }
  /// A nonzero tangent written through lane l of Ptr while its shadow is null would be lost:
  /// the program stops there (Engine::stopIfNullShadow).
  void stopIfTangentLost(IRBuilder<> &B, Value *Ptr, unsigned l, Value *Tangent, Instruction *At) {
    Value *IsNull = shadowIsNull(B, Ptr, l);
    if (!IsNull)
      return;
    Type *T = Tangent->getType();
    Value *Nonzero = T->isFPOrFPVectorTy() ? B.CreateFCmpUNE(Tangent, Constant::getNullValue(T))
                                           : B.CreateICmpNE(Tangent, Constant::getNullValue(T));
    if (auto *VT = dyn_cast<VectorType>(Nonzero->getType()))
      Nonzero = B.CreateOrReduce(Nonzero);
    E.stopIfNullShadow(B, B.CreateAnd(IsNull, Nonzero), Sig.Fn, At);
  }
  /// Lane l of P's shadow as it is stored, passed to a callee or returned (keepShadowNull).
  Value *escaping(IRBuilder<> &B, Value *P, unsigned l) {
    Value *S = lane(P, l);
    if (!NullShadows || !S || !P->getType()->isPtrOrPtrVectorTy())
      return S;
    NullRoot R = nullRoot(P);
    if (R.K == NullRoot::None || R.V == P)
      return S;
    return keepShadowNull(B, S, R.K == NullRoot::Root && active(R.V) ? lane(R.V, l) : nullptr);
  }

  void visit(Instruction *I, Instruction *C);
  void visitCall(CallBase *I, CallBase *C, IRBuilder<> &B);
  void visitDefinedCall(CallBase *I, CallBase *C, Function *Callee, IRBuilder<> &B);
  void visitMemory(Instruction *I, Instruction *C, IRBuilder<> &B);
  void finishReturn(ReturnInst *R);
};

void TangentGen::visit(Instruction *I, Instruction *C) {
  IRBuilder<> B(C->getParent(), isa<PHINode>(C) ? C->getParent()->getFirstInsertionPt()
                                                 : std::next(C->getIterator()));
  B.SetCurrentDebugLocation(C->getDebugLoc());
  Type *T = I->getType();

  if (auto *P = dyn_cast<PHINode>(I)) {
    if (!carriesDerivative(T) && !T->isPtrOrPtrVectorTy() && !movesData(I))
      return;
    // A pointer phi is visited before its back-edge values: its tangent phi would be made even
    // for a loop-carried pointer (a `chunks_exact` cursor over enzyme_const data) whose every
    // incoming value lacks a shadow, and loads through that null shadow fault. The activity
    // analysis' least fixed point says which pointer phis do have a shadow.
    if (T->isPtrOrPtrVectorTy() && !Moves.isShadowed(I) &&
        none_of(P->incoming_values(), [&](Use &U) { return Tan.count(U.get()) > 0; }))
      return;
    SmallVector<PHINode *, 4> TP;
    IRBuilder<> PB(cast<Instruction>(C)->getParent(), cast<Instruction>(C)->getParent()->begin());
    for (unsigned l = 0; l < W; ++l)
      TP.push_back(PB.CreatePHI(T, P->getNumIncomingValues(), P->getName() + ".tan"));
    Tan[I] = Lanes(TP.begin(), TP.end());
    PendingPhis.push_back({P, TP});
    return;
  }

  if (auto *TLA = dyn_cast<IntrinsicInst>(I); TLA && TLA->getIntrinsicID() == Intrinsic::threadlocal_address) {
    if (active(TLA->getArgOperand(0))) { // a thread_local global's shadow is thread_local too
      Lanes L;
      for (unsigned l = 0; l < W; ++l)
        L.push_back(B.CreateThreadLocalAddress(lane(TLA->getArgOperand(0), l)));
      Tan[I] = L;
    }
    return;
  }
  switch (classify(I)) {
  case RuleClass::Inactive:
    return;
  case RuleClass::Local: {
    const LocalRule *R = findLocalRule(I);
    SmallVector<std::pair<unsigned, Value *>, 3> Partials;
    for (unsigned Pos : differentiableOperands(R, I))
      if (active(ruleOperand(I, Pos)))
        Partials.push_back({Pos, localPartial(R, I, Pos, B, [&](Value *V) { return primal(V); })});
    if (Partials.empty())
      return;
    Lanes Out;
    for (unsigned l = 0; l < W; ++l) {
      Value *Acc = nullptr;
      for (auto &[Pos, D] : Partials) {
        Value *Term = scalePartial(R, I, Pos, D, lane(ruleOperand(I, Pos), l), B);
        Acc = Acc ? B.CreateFAdd(Acc, Term) : Term;
      }
      Out.push_back(Acc);
    }
    Tan[I] = Out;
    return;
  }
  case RuleClass::Unknown:
    if (any_of(I->operands(), [&](Use &U) { return active(U.get()); })) {
      std::string Msg, Hint;
      if (auto *CB = dyn_cast<CallBase>(I); CB && explainMissingCallRule(CB, Msg, Hint))
        fail(I, Msg, Hint);
      else
        fail(I, "no derivative rule for this instruction",
             "file an issue with this instruction; as a workaround mark its inputs enzyme_const");
    }
    return;
  case RuleClass::Structural:
    break;
  }

  if (auto *CB = dyn_cast<CallBase>(I))
    return visitCall(CB, cast<CallBase>(C), B);
  if (isa<LoadInst>(I) || isa<StoreInst>(I) || isa<AllocaInst>(I) || isa<AtomicRMWInst>(I) ||
      isa<AtomicCmpXchgInst>(I))
    return visitMemory(I, C, B);
  if (isa<ReturnInst>(I))
    return; // handled once every block is done

  // Linear data movement: apply the same operation to the tangents.
  auto mapLinear = [&](auto Make) {
    bool Any = any_of(I->operands(), [&](Use &U) { return active(U.get()); });
    if (!Any)
      return;
    Lanes Out;
    for (unsigned l = 0; l < W; ++l)
      Out.push_back(Make(l));
    Tan[I] = Out;
  };
  switch (I->getOpcode()) {
  case Instruction::FPTrunc:
  case Instruction::FPExt:
    return mapLinear([&](unsigned l) { return B.CreateFPCast(lane(I->getOperand(0), l), T); });
  case Instruction::BitCast:
    if (carriesDerivative(T) && carriesDerivative(I->getOperand(0)->getType()))
      return mapLinear([&](unsigned l) { return B.CreateBitCast(lane(I->getOperand(0), l), T); });
    if (T->isPointerTy())
      return mapLinear([&](unsigned l) { return lane(I->getOperand(0), l); });
    if ((carriesDerivative(T) || T->isIntOrIntVectorTy()) && active(I->getOperand(0))) // float bits moved as an integer
      return mapLinear([&](unsigned l) { return B.CreateBitCast(lane(I->getOperand(0), l), T); });
    if (carriesDerivative(T)) {
      if (const Instruction *Src = launderedBits(I->getOperand(0)))
        fail(const_cast<Instruction *>(Src), "bitcast between a float and a non-float type",
             "reinterpreting float bits is not differentiable; compute the value with floating-point operations");
      else if (const LoadInst *L = pointerOrFloatBits(I->getOperand(0), [&](const Value *P) { return active(const_cast<Value *>(P)); }))
        refusePointerOrFloat(Sig.Fn, L), Failed = true;
    }
    return;
  case Instruction::AddrSpaceCast:
    return mapLinear([&](unsigned l) { return B.CreateAddrSpaceCast(lane(I->getOperand(0), l), T); });
  case Instruction::GetElementPtr: {
    auto *G = cast<GetElementPtrInst>(I);
    if (!active(G->getPointerOperand()))
      return;
    auto *GC = cast<GetElementPtrInst>(C);
    SmallVector<Value *, 4> Idx(GC->indices());
    return mapLinear([&](unsigned l) {
      return B.CreateGEP(G->getSourceElementType(), lane(G->getPointerOperand(), l), Idx,
                         G->getName() + ".shadow", G->getNoWrapFlags());
    });
  }
  case Instruction::Select: {
    auto *S = cast<SelectInst>(I);
    if (!carriesDerivative(T) && !T->isPtrOrPtrVectorTy() && !T->isIntOrIntVectorTy())
      return;
    Value *Cond = primal(S->getCondition());
    return mapLinear([&](unsigned l) {
      return B.CreateSelect(Cond, lane(S->getTrueValue(), l), lane(S->getFalseValue(), l));
    });
  }
  case Instruction::ExtractElement:
    return mapLinear([&](unsigned l) {
      return B.CreateExtractElement(lane(I->getOperand(0), l), primal(I->getOperand(1)));
    });
  case Instruction::InsertElement:
    return mapLinear([&](unsigned l) {
      return B.CreateInsertElement(lane(I->getOperand(0), l), lane(I->getOperand(1), l),
                                   primal(I->getOperand(2)));
    });
  case Instruction::ShuffleVector: {
    auto *SV = cast<ShuffleVectorInst>(I);
    if (T->isIntOrIntVectorTy() && !Moves.IntMoves.count(SV) &&
        (Moves.IntMoves.count(SV->getOperand(0)) || Moves.IntMoves.count(SV->getOperand(1))))
      return fail(I, "a shuffle of integer lanes splits the floats whose bits they hold",
                  "shuffle the floats as floating-point vectors (e.g. _mm_shuffle_pd instead of _mm_shuffle_epi32)");
    return mapLinear([&](unsigned l) {
      return B.CreateShuffleVector(lane(SV->getOperand(0), l), lane(SV->getOperand(1), l),
                                   SV->getShuffleMask());
    });
  }
  case Instruction::ExtractValue: {
    auto *EV = cast<ExtractValueInst>(I);
    if (!carriesDerivative(T) && !T->isPointerTy())
      return;
    return mapLinear([&](unsigned l) { return B.CreateExtractValue(lane(EV->getAggregateOperand(), l), EV->getIndices()); });
  }
  case Instruction::InsertValue: {
    auto *IV = cast<InsertValueInst>(I);
    return mapLinear([&](unsigned l) {
      Value *In = lane(IV->getInsertedValueOperand(), l);
      if (!carriesDerivative(In->getType()) && !In->getType()->isPointerTy())
        In = zeroOf(In->getType());
      return B.CreateInsertValue(lane(IV->getAggregateOperand(), l), In, IV->getIndices());
    });
  }
  case Instruction::Freeze: // sanitizers and loop unswitching freeze values; tangents pass through
    if (carriesDerivative(T) || T->isPtrOrPtrVectorTy() || T->isIntOrIntVectorTy())
      return mapLinear([&](unsigned l) { return lane(I->getOperand(0), l); });
    return;
  case Instruction::IntToPtr:
    if (intToPtrOfScaledInteger(cast<IntToPtrInst>(I)))
      return; // a number, not an address: no tangent
    if (Value *Base = intToPtrBase(cast<IntToPtrInst>(I)); Base && active(Base)) {
      Lanes Out; // the base is not an operand: mapLinear would see no active operand
      for (unsigned l = 0; l < W; ++l)
        Out.push_back(intToPtrShadow(B, cast<IntToPtrInst>(I), Base, lane(Base, l), [&](Value *V) { return primal(V); }));
      Tan[I] = Out;
      return;
    }
    if (LoadInst *L = loadedPointerBits(cast<IntToPtrInst>(I)); L && active(L))
      return mapLinear([&](unsigned l) { return B.CreateIntToPtr(lane(L, l), T); }); // the shadow's bytes
    if (pointerBitsIn(I->getOperand(0), [&](const Value *P) { return active(const_cast<Value *>(P)); }) ||
        (maskedPointerBits(cast<IntToPtrInst>(I)) &&
         active(const_cast<Value *>(maskedPointerBits(cast<IntToPtrInst>(I))->getPointerOperand())))) {
      refuseRebuiltAddress(Sig.Fn, I);
      Failed = true;
    }
    return;
  case Instruction::PtrToInt:
    // A pointer stored as an integer (SROA's ptrtoint into a mixed slice) stores its tangent too.
    if (storedPointerBits(I) && active(I->getOperand(0)))
      return mapLinear([&](unsigned l) { return B.CreatePtrToInt(lane(I->getOperand(0), l), T); });
    return;
  case Instruction::Br:
  case Instruction::Switch:
  case Instruction::Unreachable:
  case Instruction::Fence:
    return;
  default:
    break;
  }
  if (I->isBinaryOp() || I->isCast() || isa<CmpInst>(I))
    return; // integer arithmetic carries no derivative
  if (any_of(I->operands(), [&](Use &U) { return active(U.get()); }) || carriesDerivative(T))
    fail(I, "forward mode does not support this instruction",
         "if this value should carry no derivative, mark the inputs it depends on enzyme_const");
}

static Value *underlyingArg(Value *P) {
  const Value *U = getUnderlyingObject(P, 12);
  return const_cast<Value *>(U);
}

void TangentGen::visitMemory(Instruction *I, Instruction *C, IRBuilder<> &B) {
  if (Value *P = atomicPointer(I)) {
    if (active(P) && isSupportedAtomicUpdate(I)) { // `#pragma omp atomic` x += v: the tangents add atomically too
      auto *RMW = cast<AtomicRMWInst>(I);
      if (activeArg(RMW->getValOperand()))
        for (unsigned l = 0; l < W; ++l)
          B.CreateAtomicRMW(RMW->getOperation(), lane(P, l), lane(RMW->getValOperand(), l), RMW->getAlign(),
                            RMW->getOrdering(), RMW->getSyncScopeID());
      return;
    }
    if (active(P) && !atomicOnPlainInteger(I, [&](const Value *V) {
          return movesData(const_cast<Value *>(V)) || (V != I && active(const_cast<Value *>(V)));
        })) {
      refuseAtomic(Sig.Fn, I);
      Failed = true;
    }
    return;
  }
  if (auto *AI = dyn_cast<AllocaInst>(I)) {
    Lanes L;
    IRBuilder<> EB(C);
    for (unsigned l = 0; l < W; ++l) {
      auto *S = EB.CreateAlloca(AI->getAllocatedType(), primal(AI->getArraySize()), AI->getName() + ".shadow");
      S->setAlignment(AI->getAlign());
      L.push_back(S);
    }
    const DataLayout &DL = E.module().getDataLayout();
    Value *Size = B.CreateMul(B.CreateZExtOrTrunc(primal(AI->getArraySize()), B.getInt64Ty()),
                              B.getInt64(DL.getTypeAllocSize(AI->getAllocatedType())));
    for (Value *S : L)
      B.CreateMemSet(S, B.getInt8(0), Size, AI->getAlign());
    Tan[I] = L;
    return;
  }
  if (auto *LI = dyn_cast<LoadInst>(I)) {
    Type *T = LI->getType();
    if (!(carriesDerivative(T) || T->isPtrOrPtrVectorTy() || movesData(LI)) || !active(LI->getPointerOperand()) ||
        (T->isPointerTy() && onlyReachesCode(LI)))
      return;
    Lanes L;
    for (unsigned l = 0; l < W; ++l) {
      auto *SL = B.CreateLoad(T, guard(B, LI->getPointerOperand(), l, T, false), LI->getName() + ".tan");
      SL->setAlignment(LI->getAlign());
      SL->setVolatile(LI->isVolatile());
      L.push_back(SL);
    }
    Tan[I] = L;
    return;
  }
  if (auto *SI = dyn_cast<StoreInst>(I)) {
    Value *V = SI->getValueOperand(), *P = SI->getPointerOperand();
    Type *T = V->getType();
    bool Carries = carriesDerivative(T) || T->isPtrOrPtrVectorTy();
    Value *PrimalV = cast<StoreInst>(C)->getValueOperand();
    bool NoNeed = NoNeedArgs.count(underlyingArg(P));
    if (NoNeed)
      C->eraseFromParent(); // enzyme_dupnoneed: the primal result is not wanted
    if (T->isIntOrIntVectorTy() && active(P)) {
      MemoryLayout Dest = accessLayout(E.module().getDataLayout(), P);
      if (storesRebuiltAddress(SI, Dest)) {
        refuseRebuiltAddress(Sig.Fn, SI);
        Failed = true;
        return;
      }
      // Moved float bytes carry their tangent's bytes; any other integer overwriting float data
      // ends its tangent.
      bool Moved = active(V);
      if (!Moved)
        if (const Instruction *Src = launderedBits(V)) {
          fail(const_cast<Instruction *>(Src), "float bits changed by integer arithmetic are stored as float data",
               "reinterpreting float bits is not differentiable; compute the value with floating-point operations");
          return;
        }
      if (!Moved && (storesIntegerField(SI) || Dest.Floats.empty())) {
        // A computed integer where no float lives or into a field typed as an integer (a Vec's
        // new length, a counter): the shadow object keeps the primal's value, as in reverse mode.
        if (!NoNeed && mayMirrorInteger(SI, Dest))
          for (unsigned l = 0; l < W; ++l)
            B.CreateAlignedStore(PrimalV, guard(B, P, l, T, true), SI->getAlign());
        return;
      }
      for (unsigned l = 0; l < W; ++l) {
        if (Moved)
          stopIfTangentLost(B, P, l, lane(V, l), SI);
        B.CreateAlignedStore(Moved ? lane(V, l) : Constant::getNullValue(T), guard(B, P, l, T, true), SI->getAlign());
      }
      return;
    }
    if (T->isIntOrIntVectorTy() && !active(P)) {
      // The address of derivative memory kept as an integer where there is no shadow to keep
      // its shadow's address beside it: read back and dereferenced, it would carry no tangent.
      auto Active = [&](const Value *X) { return active(const_cast<Value *>(X)); };
      if (const Value *Addr = pointerBitsIn(V, Active);
          Addr && mayHoldDerivatives(*Src, Addr, Active) && !unshadowedWriteIsHarmless(*Src, P)) {
        refuseUnshadowedWrite(Sig.Fn, SI, P, true);
        Failed = true;
      }
      return;
    }
    if (!Carries)
      return;
    if (!active(P)) {
      bool Derivative = active(V) && (carriesDerivative(T) || mayHoldDerivatives(*Src, V, [&](const Value *X) {
                                        return active(const_cast<Value *>(X));
                                      }));
      if (Derivative && !unshadowedWriteIsHarmless(*Src, P)) {
        refuseUnshadowedWrite(Sig.Fn, SI, P, T->isPtrOrPtrVectorTy());
        Failed = true;
      }
      return;
    }
    for (unsigned l = 0; l < W; ++l) {
      Value *TV = escaping(B, V, l);
      if (carriesDerivative(T) && active(V))
        stopIfTangentLost(B, P, l, TV, SI);
      auto *SS = B.CreateStore(TV, guard(B, P, l, T, true));
      SS->setAlignment(SI->getAlign());
    }
    return;
  }
}

void TangentGen::visitCall(CallBase *I, CallBase *C, IRBuilder<> &B) {
  Function *Callee = I->getCalledFunction();
  if (isIgnorableIntrinsic(I))
    return;
  if (Callee && Callee->hasFnAttribute(TapeRuntimeAttr)) { // a nested tape's arena (width 1)
    Value *BufShadow = I->arg_size() && active(I->getArgOperand(0)) ? lane(I->getArgOperand(0), 0) : nullptr;
    if (Value *T = emitShadowedTapeTangent(C, BufShadow))
      Tan[I] = Lanes{T};
    return;
  }
  if (isForkCall(I)) { // an OpenMP parallel region: its tangent is forked instead
    ForkResult R = emitTangentFork(E, Sig, I, C, [&](Value *V, unsigned l) { return activeArg(V) ? lane(V, l) : nullptr; });
    if (R == ForkResult::Failed)
      Failed = true;
    else if (R == ForkResult::Replaced)
      VMap[I] = nullptr;
    return;
  }
  if (const char *What = unsupportedOpenMPConstruct(I))
    return fail(I, Twine("the OpenMP construct '") + What + "' is not supported in differentiated code",
                "keep it outside the function you differentiate, or restructure it as a parallel for");
  if (hasJacobianRule(I)) {
    if (any_of(I->args(), [&](Use &U) { return activeArg(U.get()); }))
      Tan[I] = jacobianTangents(I, B, [&](Value *V) { return primal(V); }, W, [&](unsigned A, unsigned l) {
        Value *Arg = I->getArgOperand(A);
        return activeArg(Arg) ? lane(Arg, l) : nullptr;
      });
    return;
  }
  if (auto *MI = dyn_cast<MemIntrinsic>(I)) {
    Value *Dst = MI->getDest();
    if (!active(Dst)) {
      auto *MT = dyn_cast<MemTransferInst>(MI);
      if (MT && active(MT->getSource()) &&
          mayHoldDerivatives(*Src, MT->getSource(), [&](const Value *X) { return active(const_cast<Value *>(X)); }) &&
          !unshadowedWriteIsHarmless(*Src, Dst)) {
        refuseUnshadowedWrite(Sig.Fn, MI, Dst, false);
        Failed = true;
      }
      return;
    }
    auto *MC = cast<MemIntrinsic>(C);
    auto *MTI = dyn_cast<MemTransferInst>(MI);
    bool FromShadow = MTI && active(MTI->getSource());
    bool MayBeNull = NullShadows && (nullRoot(Dst).K != NullRoot::None ||
                                     (FromShadow && nullRoot(MTI->getSource()).K != NullRoot::None));
    for (unsigned l = 0; l < W; ++l) {
      Value *Len = MC->getLength();
      if (MayBeNull && FromShadow)
        if (Value *DstNull = shadowIsNull(B, Dst, l)) {
          // Tangents copied from memory with a shadow into memory kept without one would be lost.
          Value *SrcNull = shadowIsNull(B, MTI->getSource(), l);
          E.stopIfNullShadow(B, SrcNull ? B.CreateAnd(DstNull, B.CreateNot(SrcNull)) : DstNull, Sig.Fn, MI);
        }
      if (MayBeNull) {
        SmallVector<Value *, 2> Sh{lane(Dst, l)};
        if (FromShadow)
          Sh.push_back(lane(MTI->getSource(), l));
        Len = lengthUnlessNullShadow(B, Len, Sh);
      }
      // A shadow that aliases the primal (a string's characters, StringShadows.h) keeps the
      // primal's bytes.
      if (lane(Dst, l) != MC->getDest() && lane(Dst, l)->getType() == MC->getDest()->getType())
        Len = B.CreateSelect(B.CreateICmpEQ(lane(Dst, l), MC->getDest()), Constant::getNullValue(Len->getType()), Len);
      if (FromShadow) {
        if (isa<MemMoveInst>(MTI))
          B.CreateMemMove(lane(Dst, l), MTI->getDestAlign(), lane(MTI->getSource(), l), MTI->getSourceAlign(), Len);
        else
          B.CreateMemCpy(lane(Dst, l), MTI->getDestAlign(), lane(MTI->getSource(), l), MTI->getSourceAlign(), Len);
        continue;
      }
      B.CreateMemSet(lane(Dst, l), B.getInt8(0), Len, MI->getDestAlign());
    }
    return;
  }
  if (std::optional<Allocator> A = allocatorFor(Callee)) {
    switch (A->Role) {
    case AllocRole::Alloc: {
      // posix_memalign writes the block through an argument: its shadow receives the shadow block.
      if (A->Out >= 0 && !active(I->getArgOperand(A->Out)))
        return;
      Lanes L;
      for (unsigned l = 0; l < W; ++l)
        L.push_back(emitShadowAllocation(B, C, *A, A->Out >= 0 ? lane(I->getArgOperand(A->Out), l) : nullptr,
                                         I->getName() + ".shadow"));
      if (A->Out < 0)
        Tan[I] = L;
      return;
    }
    case AllocRole::Realloc: {
      Lanes L;
      auto Arg = [&](unsigned K) { return C->getArgOperand(K); };
      for (unsigned l = 0; l < W; ++l) {
        if (!active(I->getArgOperand(A->Ptr))) { // realloc(NULL, n), or of constant data
          L.push_back(emitZeroedBlock(B, *A, allocationBytes(B, *A, Arg), Arg, I->getName() + ".shadow"));
          continue;
        }
        SmallVector<Value *, 4> Args(C->args());
        Args[A->Ptr] = lane(I->getArgOperand(A->Ptr), l);
        L.push_back(B.CreateCall(C->getFunctionType(), C->getCalledOperand(), Args));
      }
      Tan[I] = L;
      return;
    }
    case AllocRole::Free:
      if (active(I->getArgOperand(A->Ptr)))
        for (unsigned l = 0; l < W; ++l) {
          SmallVector<Value *, 3> Args(C->args()); // sized and aligned deletes pass more
          // A shadow that aliases the primal (a string's characters, StringShadows.h) is freed once.
          Value *P = C->getArgOperand(A->Ptr), *S = lane(I->getArgOperand(A->Ptr), l);
          Args[A->Ptr] = S == P ? S : B.CreateSelect(B.CreateICmpEQ(S, P), Constant::getNullValue(S->getType()), S);
          B.CreateCall(C->getFunctionType(), C->getCalledOperand(), Args);
        }
      return;
    }
  }
  auto floatFree = [&](Value *V) {
    return V->getType()->isPointerTy() && pointsToFloatFreeMemory(V, [&](const Value *S) {
             return active(const_cast<Value *>(S));
           });
  };
  if (auto Parsed = floatsParsedByCall(*I)) {
    for (auto [A, FT] : *Parsed) // a parsed number: no derivative
      if (active(I->getArgOperand(A)))
        for (unsigned l = 0; l < W; ++l)
          B.CreateStore(Constant::getNullValue(FT), lane(I->getArgOperand(A), l));
    return;
  }
  if (std::optional<LibraryRead> R = Callee ? libraryReadOf(Callee->getName()) : std::nullopt) {
    Value *Buf = I->getArgOperand(R->Buffer);
    if (active(Buf) && !floatFree(Buf)) {
      Value *N = bytesRead(B, *R, C, [&](unsigned K) { return C->getArgOperand(K); });
      for (unsigned l = 0; l < W; ++l)
        B.CreateMemSet(lane(Buf, l), B.getInt8(0), N, MaybeAlign());
    }
    return;
  }
  bool AnyActiveArg = any_of(I->args(), [&](Use &U) { return activeArg(U.get()) && !floatFree(U.get()); });
  if (Callee && (!Callee->isDeclaration() || hasCustomForward(Callee))) {
    if (!checkMPICall(Sig.Fn, I)) {
      Failed = true;
      return;
    }
    return visitDefinedCall(I, C, Callee, B);
  }
  if (!AnyActiveArg)
    return; // an inactive call runs as it is
  StringRef Name = Callee ? Callee->getName() : "";
  if ((Callee && isKnownInactiveCallee(Name)) || isInactiveSyscall(*I)) {
    shareStringCharacters(I, C, B, W, [&](Value *V, unsigned l) { return active(V) ? lane(V, l) : nullptr; });
    return;
  }
  bool WritesActiveMemory = !I->onlyReadsMemory() && any_of(I->args(), [&](Use &U) {
                              return U->getType()->isPointerTy() && active(U.get()) && !floatFree(U.get());
                            });
  if (carriesDerivative(I->getType()) || WritesActiveMemory || !Callee) {
    refuseUnknownCallee(Sig.Fn, I);
    Failed = true;
  }
}

void TangentGen::visitDefinedCall(CallBase *I, CallBase *C, Function *Callee, IRBuilder<> &B) {
  if (!isa<CallInst>(I)) {
    fail(I, "invoke of a function on active data is not supported", "compile with -fno-exceptions");
    return;
  }
  // A virtual call on a library object (its vtable set by the library) runs as it is.
  bool Virtual = isIndirectTrampoline(Callee);
  if (Virtual && !LibraryObjects)
    LibraryObjects = libraryObjects(*Src, returningBlocks(*Src));
  auto Passed = [&](Use &U) {
    return activeArg(U.get()) && !(Virtual && U.getOperandNo() > 0 && LibraryObjects->count(getUnderlyingObject(U.get())));
  };
  // An allocation wrapper returns a fresh block, whose tangent memory comes from its derivative.
  bool Any = any_of(I->args(), Passed) || mayReturnAllocation(Callee);
  if (!Any)
    return;
  Signature CS{Callee, DiffMode::Forward, {}, W, true, carriesDerivative(I->getType()) || I->getType()->isPointerTy()};
  for (Use &U : I->args())
    CS.Acts.push_back(Passed(U) ? ArgKind::Dup : ArgKind::Const);
  CS.ShadowArgsMaybeNull = NullShadows && is_contained(CS.Acts, ArgKind::Dup);
  if (!checkNodeLinkCall(Sig.Fn, I, CS.Acts, /*Reverse=*/false)) {
    Failed = true;
    return;
  }
  Function *TF = E.tangentFunction(CS);
  if (!TF) {
    Failed = true;
    return;
  }
  SmallVector<Value *, 8> Args;
  IRBuilder<> CBld(C);
  for (Use &U : I->args()) {
    Args.push_back(primal(U.get()));
    if (CS.Acts[U.getOperandNo()] == ArgKind::Dup)
      for (unsigned l = 0; l < W; ++l)
        Args.push_back(escaping(CBld, U.get(), l));
  }
  CallInst *NC = CBld.CreateCall(TF, Args);
  NC->setDebugLoc(C->getDebugLoc());
  Type *RT = I->getType();
  if (RT->isVoidTy()) {
    C->eraseFromParent();
    VMap[I] = nullptr;
    return;
  }
  Value *Prim = CS.RetActive ? CBld.CreateExtractValue(NC, 0) : (Value *)NC;
  if (CS.RetActive) {
    Lanes L;
    for (unsigned l = 0; l < W; ++l)
      L.push_back(CBld.CreateExtractValue(NC, 1 + l));
    Tan[I] = L;
  }
  C->replaceAllUsesWith(Prim);
  C->eraseFromParent();
  VMap[I] = Prim;
}

void TangentGen::finishReturn(ReturnInst *R) {
  auto *RC = cast<ReturnInst>(VMap[R]);
  IRBuilder<> B(RC);
  Type *RT = RC->getFunction()->getReturnType();
  if (RT->isVoidTy())
    return;
  SmallVector<Value *, 5> Parts;
  Value *RV = R->getReturnValue();
  if (Sig.RetPrimal)
    Parts.push_back(primal(RV));
  if (Sig.RetActive)
    for (unsigned l = 0; l < W; ++l)
      Parts.push_back(escaping(B, RV, l));
  Value *Out;
  if (Parts.size() == 1) {
    Out = Parts[0];
  } else {
    Out = PoisonValue::get(RT);
    for (unsigned i = 0; i < Parts.size(); ++i)
      Out = B.CreateInsertValue(Out, Parts[i], i);
  }
  B.CreateRet(Out);
  RC->eraseFromParent();
}

/// Whether Src may read memory reached from A: a load, a copy out of it, or a call given it.
bool TangentGen::readsThrough(const Argument *A) {
  for (Instruction &I : instructions(*Src)) {
    const Value *P = nullptr;
    if (auto *L = dyn_cast<LoadInst>(&I))
      P = L->getPointerOperand();
    else if (auto *MT = dyn_cast<MemTransferInst>(&I))
      P = MT->getSource();
    else if (auto *CB = dyn_cast<CallBase>(&I); CB && !isa<MemIntrinsic>(&I) && !isIgnorableIntrinsic(&I)) {
      for (const Use &U : CB->args())
        if (U->getType()->isPointerTy() && getUnderlyingObject(U.get(), 12) == A)
          return true;
      continue;
    }
    if (P && getUnderlyingObject(P, 12) == A)
      return true;
  }
  return false;
}

Function *TangentGen::run(Function *NF, ClonedBody &CB) {
  for (Argument &A : Src->args())
    if (!CB.ArgShadows[A.getArgNo()].empty()) {
      Tan[&A] = CB.ArgShadows[A.getArgNo()];
      // The primal's stores through an enzyme_dupnoneed argument are dropped only when the
      // function never reads that memory back (an RK4 update `yf[i] += ...` does, and its
      // tangent needs the primal values).
      if (Sig.Acts[A.getArgNo()] == ArgKind::DupNoNeed && !readsThrough(&A))
        NoNeedArgs.insert(&A);
    }
  {
    ActivityInfo &AI = Moves;
    AI = analyzeActivity(E, *Src, Sig.Acts, Sig.RetActive);
    auto HasShadow = [&](const Value *V) { return hasShadow(V); };
    NullShadows = Sig.ShadowArgsMaybeNull || mayStoreNullShadows(*Src, HasShadow);
    for (Instruction &I : instructions(*Src))
      if (auto *L = dyn_cast<LoadInst>(&I))
        if (L->getType()->isIntOrIntVectorTy() && HasShadow(L->getPointerOperand()) && !loadsAtomicCounter(L)) {
          MemoryLayout Lay = moveLayout(E.module().getDataLayout(), L);
          if (!Lay.Floats.empty() || Lay.Pointers || loadsPointerBits(L)) // bytes of floats or pointers, any width
            ByteMoves.insert(L);
        }
  }
  ReversePostOrderTraversal<Function *> RPO(Src);
  SmallVector<ReturnInst *, 2> Rets;
  auto Live = returningBlocks(*Src);
  for (BasicBlock *BB : RPO) {
    if (!Live.count(BB))
      continue; // paths that never return run as primal code only
    SmallVector<Instruction *, 32> Insts;
    for (Instruction &I : *BB)
      Insts.push_back(&I);
    for (Instruction *I : Insts) {
      auto It = VMap.find(I);
      if (It == VMap.end() || !It->second)
        continue;
      visit(I, cast<Instruction>(It->second));
      if (auto *R = dyn_cast<ReturnInst>(I))
        Rets.push_back(R);
    }
  }
  for (auto &[P, TP] : PendingPhis)
    for (unsigned k = 0; k < P->getNumIncomingValues(); ++k) {
      auto *Blk = cast<BasicBlock>(VMap[P->getIncomingBlock(k)]);
      for (unsigned l = 0; l < W; ++l)
        TP[l]->addIncoming(lane(P->getIncomingValue(k), l), Blk);
    }
  for (ReturnInst *R : Rets)
    finishReturn(R);
  if (Failed)
    return nullptr;
  return NF;
}

} // namespace

Function *Engine::tangentFunction(const Signature &S) {
  auto It = Tangents.find(S);
  if (It != Tangents.end())
    return It->second;
  if (Custom.forwardRule(S.Fn))
    return Tangents[S] = Custom.tangent(*this, S);
  if (isNodeLinkHelper(S.Fn)) // std::map / std::list node links: the same call on the shadows
    return Tangents[S] = nodeLinkTangent(*this, S);
  if (isIndirectTrampoline(S.Fn))
    return Tangents[S] = indirectTangent(*this, S, [&](Function *F) { Tangents[S] = F, noteGenerated(F); });
  if (S.Fn->isVarArg()) {
    refuseVariadic(S.Fn);
    return Tangents[S] = nullptr;
  }
  Function *Src = primalOf(S.Fn, /*ShadowedTapes=*/S.Width == 1);
  if (refuseUnsupportedBody(S.Fn, Src))
    return Tangents[S] = nullptr;
  Type *RT = Src->getReturnType();
  SmallVector<Type *, 5> RetParts;
  if (!RT->isVoidTy()) {
    if (S.RetPrimal)
      RetParts.push_back(RT);
    if (S.RetActive)
      for (unsigned l = 0; l < S.Width; ++l)
        RetParts.push_back(RT);
  }
  Type *NRT = RetParts.empty()     ? Type::getVoidTy(M.getContext())
              : RetParts.size() == 1 ? RetParts[0]
                                     : StructType::get(M.getContext(), RetParts);
  TangentGen G(*this, S, Src);
  ClonedBody CB = cloneWithShadows(*this, Src, S, {}, NRT, "fwddiffe_" + S.Fn->getName(), G.VMap);
  Tangents[S] = CB.NF; // registered before the body is built, so recursion finds it
  noteGenerated(CB.NF);
  if (!G.run(CB.NF, CB) || !verifyGenerated(CB.NF, S.Fn)) {
    CB.NF->deleteBody(); // keep the module valid: callers now see a declaration
    CB.NF->setLinkage(GlobalValue::ExternalLinkage);
    return nullptr;
  }
  relaxVectorAlignment(*CB.NF);
  simplifier().simplifyGenerated(*CB.NF);
  return CB.NF;
}

} // namespace synthase
