// Calls in reverse mode: allocators, callees with their own gradient pair, rule-table functions.
#include "Reverse/GradientGen.h"
#include "Analysis/FloatFreeMemory.h"
#include "Analysis/OutlivingAllocations.h"
#include "Rules/InactiveLibraryCalls.h"
#include "Rules/NodeLinks.h"
#include "Rules/OpenMP.h"
#include "Reverse/ShadowCache.h"

namespace synthase {
namespace gradient {

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
      if (allocationMayOutlive(CB))
        return;
      Value *Sh = nullptr;
      if (A->Out >= 0) {
        if (Value *Aug = AllocOutShadow.lookup(CB))
          Sh = pushAndPop(Aug, Bd.getPtrTy(), B);
      } else if (shadowed(CB)) {
        Sh = revShadow(CB, B);
      }
      if (Sh && !emitCachedShadowFree(Bd, G, Sh))
        emitShadowFree(Bd, *A, Sh, revArg);
      return;
    }
    case AllocRole::Realloc:
      if (shadowed(CB)) {
        Value *NewSh = revShadow(CB, B);
        if (shadowed(CB->getArgOperand(A->Ptr))) {
          Value *Old = pushAndPop(ReallocOldSize.lookup(CB), Bd.getInt64Ty(), B);
          Value *N = allocationBytes(Bd, *A, revArg);
          Value *Copied = Bd.CreateSelect(Bd.CreateICmpULT(Old, N), Old, N);
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
        if (!allocationMayOutlive(CB))
          emitShadowFree(Bd, *A, NewSh, revArg);
      }
      return;
    case AllocRole::Free:
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
