// Calls in reverse mode: allocators, callees with their own gradient pair, rule-table functions.
#include "Reverse/GradientGen.h"
#include "Analysis/FloatFreeMemory.h"
#include "Analysis/OutlivingAllocations.h"
#include "Rules/InactiveLibraryCalls.h"
#include "Rules/NodeLinks.h"
#include "Rules/OpenMP.h"
#include "Reverse/RelocationLog.h"
#include "Reverse/ShadowCache.h"

namespace synthase {
namespace gradient {

/// A local or a global is never a block the call releases (nor the caller's heap block).
bool GradientGen::mayBeReleased(Value *P) {
  const Value *Obj = getUnderlyingObject(P);
  return !(isa<AllocaInst>(Obj) || isa<GlobalValue>(Obj) || isa<ConstantPointerNull>(Obj));
}

/// The reverse of a deallocation: the relocation log notes the freed block, which may be the
/// caller's (RelocationLog.cpp; the reverse of the allocation drops the note of one of the call's
/// own blocks). The deallocator frees the caller's old shadow later when its
/// other arguments are plain integers (sizes, alignments).
void GradientGen::noteReleasedBlock(CallBase *CB, const Allocator &A, BasicBlock *B, IRBuilder<> &Bd) {
  Value *P = CB->getArgOperand(A.Ptr);
  if (!E.releasesMemory() || !shadowed(P) || !mayBeReleased(P))
    return;
  bool Plain = true;
  for (unsigned K = 0, Extra = 0; K < CB->arg_size(); ++K)
    if ((int)K != A.Ptr && (!CB->getArgOperand(K)->getType()->isIntegerTy(64) || ++Extra > 2))
      Plain = false;
  SmallVector<Value *, 2> Args;
  if (Plain)
    for (unsigned K = 0; K < CB->arg_size(); ++K)
      if ((int)K != A.Ptr)
        Args.push_back(revPrimal(CB->getArgOperand(K), B));
  Value *Bytes = A.Size >= 0 ? revPrimal(CB->getArgOperand(A.Size), B) : nullptr;
  if (Value *Aug = FreedBytes.lookup(CB))
    Bytes = pushAndPop(Aug, Bd.getInt64Ty(), B);
  else if (A.User) // a block of the user's allocator has no size to ask: copies from its start count
    Bytes = Bd.getInt64(1);
  emitReleasedBlock(Bd, revShadow(P, B), Bytes, Plain ? CB->getCalledOperand() : nullptr, Args);
}

void GradientGen::reverseCall(CallBase *CB, BasicBlock *B, IRBuilder<> &Bd) {
  Function *G = CB->getCalledFunction();
  if (isForkCall(CB))
    return reverseFork(CB, B, Bd);
  if (auto *MI = dyn_cast<MemIntrinsic>(CB))
    return reverseMemTransfer(MI, B, Bd);
  if (hasJacobianRule(CB)) {
    if (active(CB))
      jacobianAdjoints(CB, Bd, [&](Value *V) { return revPrimal(V, B); }, takeAdjoint(Bd, CB),
                       [&](unsigned A) { return active(CB->getArgOperand(A)); },
                       [&](unsigned A, Value *D) { accumulate(Bd, CB->getArgOperand(A), D); });
    return;
  }
  if (std::optional<Allocator> A = allocatorFor(G)) {
    auto revArg = [&](unsigned K) { return revPrimal(CB->getArgOperand(K), B); };
    switch (A->Role) {
    case AllocRole::Alloc: {
      // Release the shadow the way the primal's allocator expects (new[] pairs with delete[],
      // aligned new with aligned delete, __rust_alloc with __rust_dealloc of the same layout).
      // A block that outlives the call keeps its shadow: the caller reaches it through the
      // shadow of wherever the address went, and frees it as it frees the block.
      bool Outlives = allocationMayOutlive(CB), Log = E.releasesMemory();
      if (Outlives && !Log)
        return;
      Value *Sh = nullptr;
      if (A->Out >= 0) {
        if (Value *Aug = AllocOutShadow.lookup(CB))
          Sh = pushAndPop(Aug, Bd.getPtrTy(), B);
      } else if (shadowed(CB)) {
        Sh = revShadow(CB, B);
      }
      // The relocation log learns the block is the call's own (RelocationLog.cpp); it frees the
      // shadow of a block that outlived its function but was freed in the call.
      // Only a block that may outlive the call is kept (moves into it count), for which its size is
      // needed (taped or recomputed); the others are matched by their start.
      if (Log && Sh)
        emitAllocatedBlock(Bd, Sh, Outlives && A->Size >= 0 ? allocationBytes(Bd, *A, revArg) : Bd.getInt64(0),
                           Outlives);
      if (Outlives)
        return;
      if (Sh && !emitCachedShadowFree(Bd, G, Sh))
        emitShadowFree(Bd, *A, Sh, revArg);
      return;
    }
    case AllocRole::Realloc:
      if (shadowed(CB)) {
        Value *NewSh = revShadow(CB, B);
        Value *N = allocationBytes(Bd, *A, revArg);
        if (shadowed(CB->getArgOperand(A->Ptr))) {
          Value *Old = pushAndPop(ReallocOldSize.lookup(CB), Bd.getInt64Ty(), B);
          Value *Copied = Bd.CreateSelect(Bd.CreateICmpULT(Old, N), Old, N);
          if (E.releasesMemory() && !CB->getMetadata(TapeGrowMD) && mayBeReleased(CB->getArgOperand(A->Ptr))) {
            // The old block may be the caller's (a Vec grown in the call): where its contents went.
            Value *OldSh = revShadow(CB->getArgOperand(A->Ptr), B);
            Module &M = E.module();
            Type *I64 = Bd.getInt64Ty(), *PtrTy = Bd.getPtrTy();
            if (A->Rust)
              emitReleasedBlock(Bd, OldSh, Old, M.getOrInsertFunction(A->Free, Bd.getVoidTy(), PtrTy, I64, I64).getCallee(),
                                {Old, revArg(A->Align)});
            else
              emitReleasedBlock(Bd, OldSh, Old, M.getOrInsertFunction(A->Free, Bd.getVoidTy(), PtrTy).getCallee(), {});
            emitMovedBytes(Bd, NewSh, OldSh, Copied, /*FloatsOnly=*/false);
          }
          // Nothing touches the old block after the realloc, so its shadow still holds what the
          // forward sweep copied out of it: moving mixed bytes back adds each float's adjoint and
          // leaves the shadow pointers as they were. Pointers alone have no adjoint to move.
          ReallocKind K = reallocKind(CB, CB->getArgOperand(A->Ptr));
          if (K == ReallocKind::InnerTape || K == ReallocKind::Mixed)
            Bd.CreateMemMove(revShadow(CB->getArgOperand(A->Ptr), B), Align(8), NewSh, Align(8), Copied);
          else if (K == ReallocKind::Floats) // in the element type the block is used with: Rust
            // gives exact old sizes, and 5 floats are not 2.5 doubles
            emitAdjointTransfer(Bd, floatElementType(CB, CB), revShadow(CB->getArgOperand(A->Ptr), B), NewSh, Copied);
        }
        if (E.releasesMemory() && !CB->getMetadata(TapeGrowMD))
          emitAllocatedBlock(Bd, NewSh, N, allocationMayOutlive(CB));
        if (!allocationMayOutlive(CB))
          emitShadowFree(Bd, *A, NewSh, revArg);
      }
      return;
    case AllocRole::Free:
      noteReleasedBlock(CB, *A, B, Bd);
      return;
    }
  }
  if (isDefinedCall(CB)) {
    if (isNodeLinkHelper(G))
      return; // links carry no adjoint: popping their arguments for a no-op would only grow the tape
    if (!lastLane())
      return; // the callee's reverse takes every lane at once, see below
    Signature CS = calleeSignature(CB);
    bool Any = CS.RetActive || CS.RetShadow || any_of(CS.Acts, [](ArgKind K) { return K != ArgKind::Const; });
    if (!Any)
      return;
    GradientPair GP = E.gradientPair(CS);
    if (!GP.Reverse) {
      Failed = true;
      return;
    }
    SmallVector<Value *, 8> Args;
    for (Use &U : CB->args()) {
      Args.push_back(revPrimal(U.get(), B));
      if (CS.Acts[U.getOperandNo()] == ArgKind::Dup)
        for (unsigned L = 0; L < width(); ++L)
          Args.push_back(inLane(L, [&] { return escapingRevShadow(Bd, U.get(), revShadow(U.get(), B), B); }));
    }
    if (CS.RetActive)
      for (unsigned L = 0; L < width(); ++L)
        Args.push_back(inLane(L, [&] { return takeAdjoint(Bd, CB); }));
    Args.push_back(TapeR);
    Value *R = Bd.CreateCall(GP.Reverse, Args);
    // The callee returns each Out argument's adjoint lane by lane.
    unsigned K = 0, NOut = count(CS.Acts, ArgKind::Out) * width();
    for (Use &U : CB->args())
      if (CS.Acts[U.getOperandNo()] == ArgKind::Out)
        for (unsigned L = 0; L < width(); ++L) {
          Value *D = NOut == 1 ? R : Bd.CreateExtractValue(R, K);
          inLane(L, [&] { accumulate(Bd, U.get(), D); });
          ++K;
        }
    return;
  }
  // A bodiless callee: only a problem if derivatives would have to flow through it.
  bool ActiveIn = any_of(CB->args(), [&](Use &U) { return active(U.get()); });
  bool WritesShadowed = !CB->onlyReadsMemory() && any_of(CB->args(), [&](Use &U) {
                          return U->getType()->isPointerTy() && shadowed(U.get()) &&
                                 !pointsToFloatFreeMemory(U.get(), [&](const Value *V) { return Act.Varied.count(V) > 0; });
                        });
  if (auto Parsed = floatsParsedByCall(*CB)) {
    for (auto [A, FT] : *Parsed) // a parsed number: the adjoint of what it overwrote is gone
      if (shadowed(CB->getArgOperand(A)))
        Bd.CreateStore(Constant::getNullValue(FT), revShadow(CB->getArgOperand(A), B));
    return;
  }
  if (std::optional<LibraryRead> R = G ? libraryReadOf(G->getName()) : std::nullopt) {
    Value *Buf = CB->getArgOperand(R->Buffer);
    if (shadowed(Buf)) { // what the bytes overwrote has no adjoint past this point
      Value *Res = R->Count >= 0 ? nullptr : revPrimal(CB, B); // a stream result is not needed
      Value *N = bytesRead(Bd, *R, Res, [&](unsigned K) { return revPrimal(CB->getArgOperand(K), B); });
      Bd.CreateMemSet(revShadow(Buf, B), Bd.getInt8(0), N, MaybeAlign());
    }
    return;
  }
  if (G && isInactiveOpenMPCall(G->getName())) {
    if (Lane == 0) // barriers and critical sections hold in the reverse region too
      emitOpenMPReverseSync(Bd, CB, [&](Value *V) { return revPrimal(V, B); });
    return;
  }
  if ((G && isKnownInactiveCallee(G->getName())) || isInactiveSyscall(*CB))
    return;
  if (active(CB) || WritesShadowed || (ActiveIn && !CB->getType()->isVoidTy() && carriesDerivative(CB->getType()))) {
    if (Lane == 0)
      refuseUnknownCallee(Sig.Fn, CB);
    Failed = true;
  }
}


} // namespace gradient
} // namespace synthase
