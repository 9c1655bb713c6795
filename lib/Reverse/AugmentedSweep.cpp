// Reverse mode, augmented forward sweep: the primal clone plus shadow pointers, recording on the
// tape what the reverse sweep cannot recompute.
#include "Reverse/GradientGen.h"
#include "Reverse/CustomArgumentMemory.h"
#include "Rules/OpenMP.h"
#include "Reverse/ShadowCheck.h"
#include "Reverse/ShadowCache.h"
#include "Rules/MPI.h"
#include "Rules/NodeLinks.h"

namespace synthase {
namespace gradient {

Value *GradientGen::augShadow(Value *P) {
  auto It = ShA.find(P);
  if (It != ShA.end())
    return It->second;
  if (auto *C = dyn_cast<Constant>(P))
    return E.shadowConstant(C, Lane);
  return nullptr;
}

Value *GradientGen::needShadow(Value *P, const Instruction *At) {
  if (Value *S = augShadow(P))
    return S;
  if (!Failed)
    fail(At, "internal error: no shadow was built for pointer " + printInstruction(P),
         "please report this with the input module");
  return PoisonValue::get(P->getType());
}

Value *GradientGen::guardAug(IRBuilder<> &B, Value *ShAddr, Value *SrcPtr, Type *T, bool Write) {
  NullRoot R = NullShadows ? nullRoot(SrcPtr) : NullRoot();
  if (R.K == NullRoot::None)
    return ShAddr;
  return E.guardNullShadow(B, ShAddr, R.K == NullRoot::Root ? augShadow(R.V) : nullptr, T, Write);
}

Value *GradientGen::guardRev(IRBuilder<> &B, Value *ShAddr, Value *SrcPtr, BasicBlock *RevB, Type *T, bool Write) {
  NullRoot R = NullShadows ? nullRoot(SrcPtr) : NullRoot();
  if (R.K == NullRoot::None)
    return ShAddr;
  return E.guardNullShadow(B, ShAddr, R.K == NullRoot::Root ? revShadow(R.V, RevB) : nullptr, T, Write);
}

Value *GradientGen::augShadowIsNull(IRBuilder<> &B, Value *Ptr) {
  NullRoot R = NullShadows ? nullRoot(Ptr) : NullRoot();
  if (R.K == NullRoot::None)
    return nullptr;
  // The root's shadow where there is one: an address's own shadow may be built only by the
  // reverse sweep.
  Value *Sh = augShadow(R.K == NullRoot::Root ? R.V : Ptr);
  if (!Sh || !Sh->getType()->isPointerTy())
    return nullptr;
  return E.shadowIsNull(B, Sh, R.K == NullRoot::Root ? Sh : nullptr);
}

void GradientGen::stopIfNullAug(IRBuilder<> &B, Value *Ptr, const Instruction *At, Value *From) {
  Value *IsNull = augShadowIsNull(B, Ptr);
  if (!IsNull)
    return;
  if (Value *FromNull = From ? augShadowIsNull(B, From) : nullptr)
    IsNull = B.CreateAnd(IsNull, B.CreateNot(FromNull)); // constant data copied to constant data
  E.stopIfNullShadow(B, IsNull, Sig.Fn, At);
}

void GradientGen::stopIfDerivativeLost(IRBuilder<> &B, StoreInst *SI) {
  Value *Ptr = SI->getPointerOperand();
  NullRoot To = NullShadows ? nullRoot(Ptr) : NullRoot();
  if (To.K == NullRoot::None)
    return;
  // Where the stored value's derivative comes from. It is zero at run time when every source is
  // a load through a shadow that is null then (`count[0] += 1` through the same constant
  // pointer); any other source (an active argument, a call, a load through memory that always
  // has a shadow) may carry one.
  SmallVector<Value *, 8> Work{SI->getValueOperand()};
  SmallVector<Value *, 4> Sources; // pointers loaded through, each with a maybe-null shadow
  SmallPtrSet<Value *, 16> Seen;
  bool Always = false;
  while (!Work.empty() && !Always) {
    Value *V = Work.pop_back_val();
    if (!Act.Varied.count(V) || !Seen.insert(V).second)
      continue;
    if (Seen.size() > 256) {
      Always = true; // too far to follow: take it to carry a derivative
    } else if (auto *L = dyn_cast<LoadInst>(V)) {
      NullRoot From = nullRoot(L->getPointerOperand());
      // Its shadow is tested where the store is, so it must be known there (not loaded later
      // in a loop whose phi brings it to the store).
      auto *TI = dyn_cast<Instruction>(From.K == NullRoot::Root ? From.V : L->getPointerOperand());
      if (From.K == NullRoot::None || (TI && (!SrcDT || !SrcDT->dominates(TI, SI))))
        Always = true;
      else if (From.K != NullRoot::Root || From.V != To.V || To.K != NullRoot::Root)
        Sources.push_back(L->getPointerOperand()); // else null together with the store's
    } else if (isa<BinaryOperator>(V) || isa<UnaryOperator>(V) || isa<CastInst>(V) || isa<PHINode>(V) ||
               isa<SelectInst>(V) || isa<ExtractElementInst>(V) || isa<InsertElementInst>(V) ||
               isa<ShuffleVectorInst>(V) || isa<ExtractValueInst>(V) || isa<InsertValueInst>(V) ||
               (isa<IntrinsicInst>(V) && !isa<MemIntrinsic>(V))) {
      for (Value *Op : cast<User>(V)->operands())
        Work.push_back(Op);
    } else {
      Always = true;
    }
  }
  Value *IsNull = augShadowIsNull(B, Ptr);
  if (!IsNull)
    return; // its shadow is not known in this sweep (the reverse sweep's guard still applies)
  if (!Always) {
    Value *Any = nullptr;
    for (Value *P : Sources) {
      Value *PN = augShadowIsNull(B, P);
      if (!PN) { // not testable here: count it as a source
        Any = B.getTrue();
        break;
      }
      Value *Has = B.CreateNot(PN);
      Any = Any ? B.CreateOr(Any, Has) : Has;
    }
    if (!Any)
      return;
    IsNull = B.CreateAnd(IsNull, Any);
  }
  E.stopIfNullShadow(B, IsNull, Sig.Fn, SI);
}

Value *GradientGen::escapingAugShadow(IRBuilder<> &B, Value *P, Value *S) {
  if (!S || !CalleeArgsMaybeNull || !P->getType()->isPtrOrPtrVectorTy())
    return S;
  NullRoot R = nullRoot(P);
  if (R.K == NullRoot::None || R.V == P)
    return S; // P is the root: its shadow is null exactly when it is missing
  return keepShadowNull(B, S, R.K == NullRoot::Root ? augShadow(R.V) : nullptr);
}

Value *GradientGen::escapingRevShadow(IRBuilder<> &B, Value *P, Value *S, BasicBlock *RevB) {
  if (!S || !CalleeArgsMaybeNull || !P->getType()->isPtrOrPtrVectorTy())
    return S;
  NullRoot R = nullRoot(P);
  if (R.K == NullRoot::None || R.V == P)
    return S;
  return keepShadowNull(B, S, R.K == NullRoot::Root ? revShadow(R.V, RevB) : nullptr);
}

Signature GradientGen::calleeSignature(CallBase *CB) {
  Function *G = CB->getCalledFunction();
  Signature S{G, DiffMode::Reverse, {}, Sig.Width, false, carriesDerivative(CB->getType()) && active(CB)};
  S.Parallel = Sig.Parallel; // a callee of a parallel region runs on every thread too
  S.RetShadow = CB->getType()->isPointerTy() && shadowed(CB);
  for (Use &U : CB->args()) {
    Type *T = U->getType();
    if (T->isPointerTy() && shadowed(U.get()))
      S.Acts.push_back(ArgKind::Dup);
    else if (carriesDerivative(T) && Act.Varied.count(U.get()))
      S.Acts.push_back(ArgKind::Out);
    else
      S.Acts.push_back(ArgKind::Const);
  }
  // Not NullShadows, which a callee's maybe-null returned shadow turns on midway: the augmented
  // and the reverse sweep must ask for the same pair.
  S.ShadowArgsMaybeNull = CalleeArgsMaybeNull && is_contained(S.Acts, ArgKind::Dup);
  for (Use &U : CB->args())
    if (auto *A = dyn_cast<Argument>(getUnderlyingObject(U.get(), 12));
        A && U.getOperandNo() < 64 && U->getType()->isPointerTy() && unchangedUntilReverse(A))
      S.UnchangedArgs |= uint64_t(1) << U.getOperandNo();
  return S;
}

bool isDefinedCall(const Instruction *I) {
  auto *CB = dyn_cast<CallBase>(I);
  // A Jacobian rule may sit on a function with a body: the unpacking wrappers of
  // Rules/ComplexByval.cpp.
  if (!CB || isa<IntrinsicInst>(I) || findLocalRule(I) || classify(I) == RuleClass::Inactive || hasJacobianRule(CB))
    return false;
  Function *G = CB->getCalledFunction();
  return G && (!G->isDeclaration() || hasCustomReverse(G)) && !isAllocator(G);
}

/// The augmented sweep's copy of a local that a registered reverse function will read: the same
/// bytes on the heap, so they outlive this sweep (freed by the reverse sweep, see
/// Reverse/CustomArgumentMemory.h). Lifetime markers go: they only apply to stack slots.
static Instruction *moveLocalToHeap(AllocaInst *C, Module &M) {
  const DataLayout &DL = M.getDataLayout();
  for (User *U : make_early_inc_range(C->users()))
    if (auto *II = dyn_cast<IntrinsicInst>(U); II && II->isLifetimeStartOrEnd())
      II->eraseFromParent();
  IRBuilder<> B(C);
  Value *Size = B.CreateMul(B.CreateZExtOrTrunc(C->getArraySize(), B.getInt64Ty()),
                            B.getInt64(DL.getTypeAllocSize(C->getAllocatedType())));
  uint64_t A = std::max<uint64_t>(C->getAlign().value(), 16);
  Size = B.CreateAnd(B.CreateAdd(Size, B.getInt64(A - 1)), B.getInt64(~(A - 1)));
  FunctionCallee AlignedAlloc = M.getOrInsertFunction("aligned_alloc", B.getPtrTy(), B.getInt64Ty(), B.getInt64Ty());
  auto *H = cast<Instruction>(B.CreateCall(AlignedAlloc, {B.getInt64(A), Size}, C->getName() + ".heap"));
  C->replaceAllUsesWith(H);
  C->eraseFromParent();
  return H;
}

void GradientGen::augInstruction(Instruction *I) {
  auto *C = dyn_cast_or_null<Instruction>(augOf(I));
  if (!C || C == I)
    return;
  if (auto *AI = dyn_cast<AllocaInst>(I); AI && isa<AllocaInst>(C) && reachesCustomReverse(AI)) {
    C = moveLocalToHeap(cast<AllocaInst>(C), E.module());
    HeapLocals.insert(AI);
  }
  Type *T = I->getType();
  IRBuilder<> B(C->getParent(), isa<PHINode>(C) ? C->getParent()->getFirstInsertionPt()
                                                 : std::next(C->getIterator()));
  B.SetCurrentDebugLocation(C->getDebugLoc());
  if (T->isPtrOrPtrVectorTy() && shadowed(I)) {
    if (auto *P = dyn_cast<PHINode>(I)) {
      IRBuilder<> PB(C->getParent(), C->getParent()->begin());
      ShA[I] = PB.CreatePHI(T, P->getNumIncomingValues(), I->getName() + ".shadow");
    } else if (auto *G = dyn_cast<GetElementPtrInst>(I)) {
      SmallVector<Value *, 4> Idx(cast<GetElementPtrInst>(C)->indices());
      ShA[I] = B.CreateGEP(G->getSourceElementType(), needShadow(G->getPointerOperand(), I), Idx,
                           I->getName() + ".shadow", G->getNoWrapFlags());
    } else if (isa<BitCastInst>(I) || isa<AddrSpaceCastInst>(I)) {
      ShA[I] = B.CreatePointerCast(needShadow(I->getOperand(0), I), T);
    } else if (auto *I2P = dyn_cast<IntToPtrInst>(I); I2P && intToPtrOfScaledInteger(I2P)) {
      ShA[I] = Constant::getNullValue(T); // a number, not an address
    } else if (auto *I2P = dyn_cast<IntToPtrInst>(I); I2P && !intToPtrBase(I2P)) {
      // A pointer read from memory as an integer: its shadow is read where the integer was.
      LoadInst *L = loadedPointerBits(I2P);
      if (!L) {
        if (Lane == 0)
          refuseRebuiltAddress(Sig.Fn, I2P);
        Failed = true;
        ShA[I] = PoisonValue::get(T);
        return;
      }
      IRBuilder<> LB(cast<Instruction>(augOf(L))->getNextNode());
      Value *From = guardAug(LB, needShadow(L->getPointerOperand(), I), L->getPointerOperand(), T, false);
      ShA[I] = LB.CreateAlignedLoad(T, From, L->getAlign(), I->getName() + ".shadow");
      if (shadowChecksEnabled())
        emitShadowCheck(B, C, ShA[I], printInstruction(I) + " in " + displayName(Sig.Fn->getName()));
    } else if (auto *I2P = dyn_cast<IntToPtrInst>(I)) {
      // A hand-aligned pointer: derived from its base's shadow as the address is from the base.
      Value *Base = intToPtrBase(I2P);
      ShA[I] = intToPtrShadow(B, I2P, Base, needShadow(Base, I), [&](Value *V) { return augOf(V); });
    } else if (isa<FreezeInst>(I)) {
      ShA[I] = needShadow(I->getOperand(0), I);
    } else if (auto *S = dyn_cast<SelectInst>(I)) {
      Value *TV = augShadow(S->getTrueValue()), *FV = augShadow(S->getFalseValue());
      ShA[I] = B.CreateSelect(augOf(S->getCondition()), TV ? TV : Constant::getNullValue(T),
                              FV ? FV : Constant::getNullValue(T));
    } else if (auto *LI = dyn_cast<LoadInst>(I)) {
      Value *From = guardAug(B, needShadow(LI->getPointerOperand(), I), LI->getPointerOperand(), T, false);
      ShA[I] = B.CreateAlignedLoad(T, From, LI->getAlign(), I->getName() + ".shadow");
      if (shadowChecksEnabled())
        emitShadowCheck(B, C, ShA[I], printInstruction(I) + " in " + displayName(Sig.Fn->getName()));
    } else if (isa<ExtractElementInst>(I) || isa<InsertElementInst>(I) || isa<ShuffleVectorInst>(I)) {
      // Vectors of pointers (the SLP vectorizer's `load <8 x ptr>`): the same lane operations on
      // the vector of shadows.
      Instruction *SC = C->clone();
      for (Use &U : SC->operands())
        if (U->getType()->isPtrOrPtrVectorTy()) {
          Value *Sh = augShadow(I->getOperand(U.getOperandNo()));
          U.set(Sh ? Sh : Constant::getNullValue(U->getType()));
        }
      SC->setName(I->getName() + ".shadow");
      B.Insert(SC);
      ShA[I] = SC;
    } else if (auto *AI = dyn_cast<AllocaInst>(I)) {
      // The shadow outlives this sweep (the reverse sweep needs it), so it lives on the heap: a
      // block of the thread's shadow cache, given back where the variable's reverse ends it.
      // Over-aligned (AVX buffers, Eigen's packets): the code uses aligned vector moves on the
      // shadow too, so it gets the alignment.
      Value *Size = B.CreateMul(B.CreateZExtOrTrunc(augOf(AI->getArraySize()), B.getInt64Ty()),
                                B.getInt64(DL.getTypeAllocSize(AI->getAllocatedType())));
      ShA[I] = emitCachedShadowBlock(B, Size, B.getInt64(std::max<uint64_t>(AI->getAlign().value(), 16)),
                                     I->getName() + ".shadow");
    } else if (auto *CB = dyn_cast<CallBase>(I)) {
      std::optional<Allocator> A = allocatorFor(CB->getCalledFunction());
      auto augArg = [&](unsigned K) { return augOf(CB->getArgOperand(K)); };
      auto *TLA = dyn_cast<IntrinsicInst>(CB);
      if (TLA && TLA->getIntrinsicID() == Intrinsic::threadlocal_address) {
        ShA[I] = B.CreateThreadLocalAddress(needShadow(TLA->getArgOperand(0), I)); // a thread_local's shadow
      } else if (A && A->Role == AllocRole::Alloc) {
        ShA[I] = emitCachedShadowAllocation(B, cast<CallBase>(C), *A, I->getName() + ".shadow");
        if (!ShA[I])
          ShA[I] = emitShadowAllocation(B, cast<CallBase>(C), *A, nullptr, I->getName() + ".shadow");
      } else if (A && A->Role == AllocRole::Realloc) {
        // The old shadow must outlive the realloc (the reverse sweep of earlier code still adds
        // into it): the new shadow is a fresh zeroed block, and the reverse of the realloc moves
        // the adjoints of the copied prefix back into the old one.
        IRBuilder<> PB(C);
        Value *OldSh = augShadow(CB->getArgOperand(A->Ptr));
        FunctionCallee Usable = E.module().getOrInsertFunction("malloc_usable_size", PB.getInt64Ty(), PB.getPtrTy());
        Value *OldSize = !OldSh            ? PB.getInt64(0)
                         : A->OldSize >= 0 ? PB.CreateZExtOrTrunc(augArg(A->OldSize), PB.getInt64Ty())
                                           : (Value *)PB.CreateCall(Usable, {OldSh});
        ReallocOldSize[I] = OldSize;
        Value *NewBytes = allocationBytes(B, *A, augArg);
        ShA[I] = emitZeroedBlock(B, *A, NewBytes, augArg, I->getName() + ".shadow");
        // A block that holds pointers (or an inner gradient's tape) keeps its shadow pointers:
        // they move to the new shadow as realloc moves the pointers; the float adjoints that move
        // with them are zero in this sweep (or the caller's seed, which moves with its value).
        if (OldSh && reallocKind(CB, CB->getArgOperand(A->Ptr)) != ReallocKind::Floats)
          B.CreateMemCpy(ShA[I], Align(8), OldSh, Align(8),
                         B.CreateSelect(B.CreateICmpULT(OldSize, NewBytes), OldSize, NewBytes));
      } else if (!isDefinedCall(I)) { // a defined callee returns its shadow: see below
        fail(I, "reverse mode: a pointer returned by a call to a function without a body, on differentiated memory, is not supported",
             "compile the callee into the same module (full LTO), or register it with __enzyme_allocation_like if it allocates");
      }
    }
  }
  if (auto *CB = dyn_cast<CallBase>(I)) {
    std::optional<Allocator> A = allocatorFor(CB->getCalledFunction());
    if (A && A->Role == AllocRole::Alloc && A->Out >= 0 && shadowed(CB->getArgOperand(A->Out)))
      AllocOutShadow[I] = emitShadowAllocation(B, cast<CallBase>(C), *A, augShadow(CB->getArgOperand(A->Out)),
                                               I->getName() + ".shadow");
    // The relocation log's extent of a block freed without a size: the primal block's, read
    // while it is alive, for a block that may be the caller's (its shadow may be any memory the
    // caller chose; the shadow of one of the function's own blocks is a heap block of ours).
    Value *Freed = A && A->Role == AllocRole::Free ? CB->getArgOperand(A->Ptr) : nullptr;
    auto *FreedFrom = Freed ? dyn_cast<CallBase>(getUnderlyingObject(Freed)) : nullptr;
    if (Freed && A->Size < 0 && !A->User && shadowed(Freed) && mayBeReleased(Freed) && E.releasesMemory() &&
        !(FreedFrom && isAllocator(FreedFrom->getCalledFunction())) && !FreedBytes.count(I)) {
      IRBuilder<> PB(C);
      FunctionCallee Usable = E.module().getOrInsertFunction("malloc_usable_size", PB.getInt64Ty(), PB.getPtrTy());
      FreedBytes[I] = PB.CreateCall(Usable, {augOf(Freed)});
    }
  }
  if (Value *P = atomicPointer(I); P && shadowed(P) && Lane == 0 && !isSupportedAtomicUpdate(I) &&
      !atomicOnPlainInteger(I, [&](const Value *V) { return Act.IntMoves.count(V) > 0; })) {
    refuseAtomic(Sig.Fn, I);
    Failed = true;
  }
  if (auto *SV = dyn_cast<ShuffleVectorInst>(I); SV && T->isIntOrIntVectorTy() && !Act.IntMoves.count(SV) &&
      (Act.IntMoves.count(SV->getOperand(0)) || Act.IntMoves.count(SV->getOperand(1))))
    fail(I, "a shuffle of integer lanes splits the floats whose bits they hold",
         "shuffle the floats as floating-point vectors (e.g. _mm_shuffle_pd instead of _mm_shuffle_epi32)");
  if (isa<BitCastInst>(I) && carriesDerivative(T) && I->getOperand(0)->getType()->isIntOrIntVectorTy() &&
      !Act.IntMoves.count(I->getOperand(0))) { // floats moved as integers come back whole
    if (const Instruction *Bits = launderedFloatBits(I->getOperand(0), [&](const Value *V) { return Act.Varied.count(V) > 0; },
                                                     [&](const Value *V) { return Act.IntMoves.count(V) && Act.Varied.count(V) && floatBitsKnown(DL, V); }))
      fail(Bits, "bitcast between a float and a non-float type",
           "reinterpreting float bits is not differentiable; compute the value with floating-point operations");
    else if (const LoadInst *L = pointerOrFloatBits(I->getOperand(0), [&](const Value *P) { return shadowed(P); })) {
      if (Lane == 0)
        refusePointerOrFloat(Sig.Fn, L);
      Failed = true;
    }
  }
  if (auto *SI = dyn_cast<StoreInst>(I)) {
    // Pointers stored into derivative memory carry their shadow along.
    Value *V = SI->getValueOperand();
    if (V->getType()->isPtrOrPtrVectorTy() && shadowed(SI->getPointerOperand())) {
      Value *SV = escapingAugShadow(B, V, augShadow(V));
      Value *To = guardAug(B, needShadow(SI->getPointerOperand(), I), SI->getPointerOperand(), V->getType(), true);
      B.CreateAlignedStore(SV ? SV : Constant::getNullValue(V->getType()), To, SI->getAlign());
    } else if (Value *P = storedPointerBits(V); P && shadowed(SI->getPointerOperand())) {
      Value *SV = escapingAugShadow(B, P, augShadow(P));
      Value *To = guardAug(B, needShadow(SI->getPointerOperand(), I), SI->getPointerOperand(), P->getType(), true);
      B.CreateAlignedStore(SV ? SV : Constant::getNullValue(P->getType()), To, SI->getAlign());
    } else if (shadowed(SI->getPointerOperand()) && Act.Varied.count(V) &&
               (carriesDerivative(V->getType()) || Act.IntMoves.count(V))) {
      stopIfDerivativeLost(B, SI);
    } else if (!shadowed(SI->getPointerOperand())) {
      auto Shadowed = [&](const Value *X) { return shadowed(X); };
      // An address of derivative memory kept as an integer counts as the pointer it is.
      const Value *Addr = V->getType()->isIntOrIntVectorTy() ? pointerBitsIn(V, Shadowed) : nullptr;
      bool Derivative = carriesDerivative(V->getType()) ? Act.Varied.count(V) > 0
                        : Addr                          ? mayHoldDerivatives(*Src, Addr, Shadowed)
                                                        : V->getType()->isPtrOrPtrVectorTy() && shadowed(V) &&
                                                              mayHoldDerivatives(*Src, V, Shadowed);
      if (Derivative && Lane == 0 && !unshadowedWriteIsHarmless(*Src, SI->getPointerOperand())) {
        refuseUnshadowedWrite(Sig.Fn, SI, SI->getPointerOperand(), V->getType()->isPtrOrPtrVectorTy() || Addr);
        Failed = true;
      }
    }
  }
  if (auto *SI = dyn_cast<StoreInst>(I); SI && IntegerMirrors.count(SI)) {
    Type *T = SI->getValueOperand()->getType();
    Value *To = guardAug(B, needShadow(SI->getPointerOperand(), I), SI->getPointerOperand(), T, true);
    B.CreateAlignedStore(augOf(SI->getValueOperand()), To, SI->getAlign());
  }
  if (auto *SI = dyn_cast<StoreInst>(I); SI && ShadowMoves.count(SI)) {
    auto *L = cast<LoadInst>(SI->getValueOperand());
    Type *T = L->getType();
    Value *From = guardAug(B, needShadow(L->getPointerOperand(), I), L->getPointerOperand(), T, false);
    Value *To = guardAug(B, needShadow(SI->getPointerOperand(), I), SI->getPointerOperand(), T, true);
    B.CreateAlignedStore(B.CreateAlignedLoad(T, From, L->getAlign()), To, SI->getAlign());
  }
  if (auto *MT = dyn_cast<MemTransferInst>(I); MT && shadowed(MT->getDest()) && shadowed(MT->getSource()))
    augMemTransfer(MT, cast<MemTransferInst>(C), B);
  if (auto *MT = dyn_cast<MemTransferInst>(I))
    if (!shadowed(MT->getDest()) && shadowed(MT->getSource()) &&
        mayHoldDerivatives(*Src, MT->getSource(), [&](const Value *X) { return shadowed(X); }) &&
        Lane == 0 && !unshadowedWriteIsHarmless(*Src, MT->getDest())) {
      refuseUnshadowedWrite(Sig.Fn, MT, MT->getDest(), false);
      Failed = true;
    }
  if (auto *CB = dyn_cast<CallBase>(I)) {
    if (isForkCall(CB)) { // an OpenMP parallel region
      if (lastLane())
        augFork(CB, C);
      return;
    }
    if (const char *What = unsupportedOpenMPConstruct(CB))
      return fail(I, Twine("the OpenMP construct '") + What + "' is not supported in differentiated code",
                  "keep it outside the function you differentiate, or restructure it as a parallel for");
  }
  // A callee's pair takes every lane's shadows at once: called when the last lane is reached.
  if (isDefinedCall(I) && lastLane()) {
    auto *CB = cast<CallBase>(I);
    if (!isa<CallInst>(CB)) {
      fail(I, "invoke of a differentiated function is not supported", "compile with -fno-exceptions");
      return;
    }
    Signature CS = calleeSignature(CB);
    bool Any = CS.RetActive || CS.RetShadow || any_of(CS.Acts, [](ArgKind K) { return K != ArgKind::Const; });
    if (!Any)
      return; // runs as it is, once, in the forward sweep
    if (!checkMPICall(Sig.Fn, CB) || !checkNodeLinkCall(Sig.Fn, CB, CS.Acts, /*Reverse=*/true)) {
      Failed = true;
      return;
    }
    GradientPair GP = E.gradientPair(CS);
    if (!GP.Augmented) {
      Failed = true;
      return;
    }
    SmallVector<Value *, 8> Args;
    IRBuilder<> CBld(C);
    for (Use &U : CB->args()) {
      Args.push_back(augOf(U.get()));
      if (CS.Acts[U.getOperandNo()] == ArgKind::Dup)
        for (unsigned L = 0; L < width(); ++L)
          Args.push_back(inLane(L, [&] { return escapingAugShadow(CBld, U.get(), augShadow(U.get())); }));
    }
    Args.push_back(TapeA);
    CallInst *NC = CBld.CreateCall(GP.Augmented, Args);
    NC->setDebugLoc(C->getDebugLoc());
    Value *Prim = NC;
    if (CS.RetShadow) { // {primal, one shadow per lane}
      Prim = CBld.CreateExtractValue(NC, 0, I->getName());
      for (unsigned L = 0; L < width(); ++L)
        inLane(L, [&] {
          ShA[I] = CBld.CreateExtractValue(NC, 1 + L, I->getName() + ".shadow");
          if (shadowChecksEnabled())
            emitShadowCheck(CBld, Prim, ShA[I], "returned by " + printInstruction(I) + " in " + displayName(Sig.Fn->getName()));
        });
      NullShadows |= GP.RetShadowMaybeNull;
    }
    if (!C->getType()->isVoidTy())
      C->replaceAllUsesWith(Prim);
    C->eraseFromParent();
    VA[I] = NC->getType()->isVoidTy() ? nullptr : Prim;
  }
}

} // namespace gradient
} // namespace synthase
