// Wrappers around registered derivatives. Each has exactly the signature the generators give a
// generated callee, so a call of a registered f is handled like a call of any differentiated
// function; inside, the user's functions are called with Enzyme's argument convention
// (CustomDerivatives.cpp). The wrappers are tiny and get inlined by the post-pass.
#include "Engine/Engine.h"
#include "Reverse/Tape.h"
#include "Rules/CustomDerivatives.h"
#include "Support/Diagnostics.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"

using namespace llvm;

namespace synthase {
namespace {

bool hasShadowArg(ArgKind K) { return K == ArgKind::Dup || K == ArgKind::DupNoNeed; }

struct Wrapper {
  Function *NF = nullptr;
  SmallVector<Value *, 8> Primal;                 ///< per parameter of f
  SmallVector<SmallVector<Value *, 4>, 8> Shadow; ///< per parameter of f, per lane
  SmallVector<Value *, 2> Extra;                  ///< trailing parameters (dret, tape)
};

/// A function (args, each Dup argument followed by Lanes shadows, Extra) -> RT.
Wrapper makeWrapper(Engine &E, const Signature &S, unsigned Lanes, ArrayRef<Type *> Extra, Type *RT,
                    const Twine &Name) {
  Wrapper W;
  FunctionType *FT = S.Fn->getFunctionType();
  SmallVector<Type *, 16> Params;
  for (unsigned i = 0; i < FT->getNumParams(); ++i) {
    Params.push_back(FT->getParamType(i));
    if (hasShadowArg(S.Acts[i]))
      Params.append(Lanes, FT->getParamType(i));
  }
  Params.append(Extra.begin(), Extra.end());
  W.NF = Function::Create(FunctionType::get(RT, Params, false), GlobalValue::InternalLinkage, Name, E.module());
  for (StringRef K : {"target-cpu", "target-features"})
    if (S.Fn->hasFnAttribute(K))
      W.NF->addFnAttr(S.Fn->getFnAttribute(K));
  unsigned Pos = 0;
  for (unsigned i = 0; i < FT->getNumParams(); ++i) {
    W.Primal.push_back(W.NF->getArg(Pos++));
    W.Shadow.emplace_back();
    if (hasShadowArg(S.Acts[i]))
      for (unsigned l = 0; l < Lanes; ++l)
        W.Shadow.back().push_back(W.NF->getArg(Pos++));
  }
  for (; Pos < W.NF->arg_size(); ++Pos)
    W.Extra.push_back(W.NF->getArg(Pos));
  BasicBlock::Create(E.module().getContext(), "entry", W.NF);
  E.noteGenerated(W.NF);
  return W;
}

/// The result of a call to a user function, readable part by part whatever its lowering: a
/// value, a C struct returned in registers as LLVM coerced it, or an sret buffer.
struct UserResult {
  Value *V = nullptr;   ///< the call's value (null for sret)
  Value *Mem = nullptr; ///< the bytes of the result (the sret buffer, or V spilled on demand)
  StructType *Parts = nullptr; ///< how the parts lie in the result

  Value *part(IRBuilder<> &B, int K, Type *Want) {
    if (K == ReturnLayout::Whole && V && V->getType() == Want)
      return V;
    if (K >= 0 && V && V->getType() == Parts && Parts->getElementType(K) == Want)
      return B.CreateExtractValue(V, K);
    const DataLayout &DL = B.GetInsertBlock()->getModule()->getDataLayout();
    if (!Mem) { // same bytes, another lowering: reinterpret through memory
      Function *F = B.GetInsertBlock()->getParent();
      IRBuilder<> EB(&F->getEntryBlock(), F->getEntryBlock().begin());
      uint64_t Size = DL.getTypeAllocSize(V->getType());
      if (Parts)
        Size = std::max<uint64_t>(Size, DL.getTypeAllocSize(Parts));
      AllocaInst *A = EB.CreateAlloca(ArrayType::get(EB.getInt8Ty(), Size), nullptr, "custom.result");
      A->setAlignment(Align(16));
      B.CreateStore(V, A);
      Mem = A;
    }
    uint64_t Off = K == ReturnLayout::Whole ? 0 : DL.getStructLayout(Parts)->getElementOffset(K);
    return B.CreateLoad(Want, B.CreateConstGEP1_64(B.getInt8Ty(), Mem, Off));
  }
};

UserResult callUser(IRBuilder<> &B, Function *UF, const ReturnLayout &L, ArrayRef<Value *> Args,
                    StructType *Parts) {
  UserResult R;
  R.Parts = Parts;
  const DataLayout &DL = UF->getParent()->getDataLayout();
  SmallVector<Value *, 16> CallArgs;
  if (L.SRet) {
    Function *NF = B.GetInsertBlock()->getParent();
    IRBuilder<> EB(&NF->getEntryBlock(), NF->getEntryBlock().begin());
    uint64_t Size = DL.getTypeAllocSize(L.Type);
    if (Parts)
      Size = std::max<uint64_t>(Size, DL.getTypeAllocSize(Parts));
    AllocaInst *A = EB.CreateAlloca(ArrayType::get(EB.getInt8Ty(), Size), nullptr, "custom.sret");
    A->setAlignment(Align(16));
    R.Mem = A;
    CallArgs.push_back(A);
  }
  CallArgs.append(Args.begin(), Args.end());
  CallInst *CI = B.CreateCall(UF->getFunctionType(), UF, CallArgs);
  CI->setCallingConv(UF->getCallingConv());
  if (!L.SRet && !L.Type->isVoidTy())
    R.V = CI;
  return R;
}

/// Enzyme's argument list for augmented_f / reverse_f: each argument, followed by its shadow
/// unless it is floating point. An argument without a shadow passes its own value (integers, as
/// Enzyme does) or a null pointer (constant memory: the derivative must not write there).
SmallVector<Value *, 16> reverseArgs(const Wrapper &W, FunctionType *FT) {
  SmallVector<Value *, 16> A;
  for (unsigned i = 0; i < FT->getNumParams(); ++i) {
    Type *T = FT->getParamType(i);
    A.push_back(W.Primal[i]);
    if (T->isFPOrFPVectorTy())
      continue;
    if (!W.Shadow[i].empty())
      A.push_back(W.Shadow[i][0]);
    else
      A.push_back(T->isIntOrIntVectorTy() ? W.Primal[i] : Constant::getNullValue(T));
  }
  return A;
}

/// An invalid wrapper is reported and reduced to a declaration, so the module stays valid.
bool verified(Engine &E, Function *F, Function *Source) {
  if (E.verifyGenerated(F, Source))
    return true;
  F->deleteBody();
  F->setLinkage(GlobalValue::ExternalLinkage);
  return false;
}

void markUsed(const CustomRule &R) {
  R.Reg->setMetadata(CustomUsedMD, MDNode::get(R.Reg->getContext(), {}));
}

} // namespace

Function *CustomDerivatives::tangent(Engine &E, const Signature &S) {
  const CustomRule &R = *forwardRule(S.Fn);
  markUsed(R);
  LLVMContext &C = E.module().getContext();
  Type *RT = S.Fn->getReturnType();
  unsigned W = S.Width;
  SmallVector<Type *, 5> RetParts;
  if (!RT->isVoidTy()) {
    if (S.RetPrimal)
      RetParts.push_back(RT);
    if (S.RetActive)
      RetParts.append(W, RT);
  }
  Type *NRT = RetParts.empty() ? Type::getVoidTy(C) : RetParts.size() == 1 ? RetParts[0] : StructType::get(C, RetParts);
  Wrapper Wr = makeWrapper(E, S, W, {}, NRT, "fwddiffe_custom_" + S.Fn->getName());
  IRBuilder<> B(&Wr.NF->getEntryBlock());
  FunctionType *FT = S.Fn->getFunctionType();
  Value *Primal = nullptr;
  if (!RT->isVoidTy() && S.RetPrimal && R.FwdRet.Primal < 0)
    Primal = B.CreateCall(S.Fn, Wr.Primal); // a tangent-only derivative: f itself gives the result
  SmallVector<Value *, 4> Tangents;
  StructType *Parts = RT->isVoidTy() ? nullptr : StructType::get(RT, RT);
  // One call per lane: the derivative computes one direction.
  for (unsigned l = 0; l < W; ++l) {
    SmallVector<Value *, 16> Args;
    for (unsigned i = 0; i < FT->getNumParams(); ++i) {
      Args.push_back(Wr.Primal[i]);
      Args.push_back(Wr.Shadow[i].empty() ? Constant::getNullValue(FT->getParamType(i)) : Wr.Shadow[i][l]);
    }
    UserResult UR = callUser(B, R.Fwd, R.FwdRet, Args, Parts);
    if (RT->isVoidTy())
      continue;
    if (l == 0 && !Primal && S.RetPrimal)
      Primal = UR.part(B, R.FwdRet.Primal, RT);
    Tangents.push_back(UR.part(B, R.FwdRet.Shadow, RT));
  }
  SmallVector<Value *, 5> Out;
  if (!RT->isVoidTy()) {
    if (S.RetPrimal)
      Out.push_back(Primal);
    if (S.RetActive)
      Out.append(Tangents.begin(), Tangents.end());
  }
  if (Out.empty())
    B.CreateRetVoid();
  else if (Out.size() == 1)
    B.CreateRet(Out[0]);
  else
    B.CreateAggregateRet(Out.data(), Out.size());
  return verified(E, Wr.NF, S.Fn) ? Wr.NF : nullptr;
}

GradientPair CustomDerivatives::gradient(Engine &E, const Signature &S) {
  const CustomRule &R = *reverseRule(S.Fn);
  markUsed(R);
  LLVMContext &C = E.module().getContext();
  FunctionType *FT = S.Fn->getFunctionType();
  Type *RT = FT->getReturnType();
  Type *TapeP = PointerType::getUnqual(C);
  for (unsigned i = 0; i < FT->getNumParams(); ++i)
    if (S.Acts[i] == ArgKind::Out && !FT->getParamType(i)->isFPOrFPVectorTy()) {
      reportModuleError(E.module(), "the registered gradient of '" + displayName(S.Fn->getName()) +
                                        "' cannot give the adjoint of argument " + Twine(i + 1) + " (" +
                                        printType(FT->getParamType(i)) + ")",
                        "pass aggregates of floats by pointer to functions with a custom gradient");
      return {};
    }

  // The augmented sweep: f's result (and the shadow of a returned pointer); the user's tape goes
  // on Synthase's tape for the reverse sweep.
  Type *ART = RT->isVoidTy() ? RT : S.RetShadow ? (Type *)StructType::get(RT, RT) : RT;
  Wrapper A = makeWrapper(E, S, 1, {TapeP}, ART, "augmented_custom_" + S.Fn->getName());
  IRBuilder<> B(&A.NF->getEntryBlock());
  const ReturnLayout &AL = R.AugRet;
  Value *Primal = nullptr, *Shadow = nullptr;
  if (!RT->isVoidTy() && AL.Primal == -1)
    Primal = B.CreateCall(S.Fn, A.Primal); // as in Enzyme, f itself gives a result the augmented function does not
  StructType *AParts = dyn_cast<StructType>(AL.Type);
  UserResult UR = callUser(B, R.Aug, AL, reverseArgs(A, FT), AParts);
  if (AL.Primal != -1)
    Primal = UR.part(B, AL.Primal, RT);
  if (AL.Shadow != -1)
    Shadow = UR.part(B, AL.Shadow, RT);
  bool Taped = AL.Tape != -1 && R.RevTakesTape;
  Value *UserTape = Taped ? UR.part(B, AL.Tape, R.TapeTy) : nullptr;
  ReturnInst *Ret;
  if (RT->isVoidTy()) {
    Ret = B.CreateRetVoid();
  } else if (S.RetShadow) {
    if (!Shadow) {
      reportModuleError(E.module(), "the augmented function '" + displayName(R.Aug->getName()) +
                                        "' registered for '" + displayName(S.Fn->getName()) +
                                        "' does not return the shadow of the pointer it returns, which the caller needs",
                        "return {tape, result, shadow} or {result, shadow}");
      A.NF->eraseFromParent();
      return {};
    }
    Value *P = B.CreateInsertValue(PoisonValue::get(ART), Primal, 0);
    Ret = B.CreateRet(B.CreateInsertValue(P, Shadow, 1));
  } else {
    Ret = B.CreateRet(Primal);
  }
  if (Taped)
    emitTapePush(E, Ret, A.Extra.back(), UserTape);

  // The reverse sweep: the user's adjoints of f's float arguments, picked for the Out arguments.
  SmallVector<Type *, 2> Extra;
  if (S.RetActive)
    Extra.push_back(RT);
  Extra.push_back(TapeP);
  SmallVector<Type *, 8> Outs, AllOuts;
  for (unsigned i = 0; i < FT->getNumParams(); ++i) {
    if (S.Acts[i] == ArgKind::Out)
      Outs.push_back(FT->getParamType(i));
    if (FT->getParamType(i)->isFPOrFPVectorTy())
      AllOuts.push_back(FT->getParamType(i));
  }
  Type *ORT = Outs.empty() ? Type::getVoidTy(C) : Outs.size() == 1 ? Outs[0] : StructType::get(C, Outs);
  Wrapper V = makeWrapper(E, S, 1, Extra, ORT, "reverse_custom_" + S.Fn->getName());
  IRBuilder<> RB(&V.NF->getEntryBlock());
  Value *Tape = V.Extra.back();
  SmallVector<Value *, 16> Args = reverseArgs(V, FT);
  if (RT->isFPOrFPVectorTy())
    Args.push_back(S.RetActive ? V.Extra[0] : Constant::getNullValue(RT));
  if (R.RevTakesTape) {
    Type *TT = R.Rev->getFunctionType()->params().back();
    Args.push_back(Taped ? emitTapePop(E, RB, Tape, R.TapeTy) : Constant::getNullValue(TT));
  }
  StructType *RParts = AllOuts.empty() ? nullptr : StructType::get(C, AllOuts);
  UserResult RR = callUser(RB, R.Rev, R.RevRet, Args, RParts);
  SmallVector<Value *, 8> Adj;
  unsigned K = 0;
  for (unsigned i = 0; i < FT->getNumParams(); ++i) {
    Type *T = FT->getParamType(i);
    if (!T->isFPOrFPVectorTy())
      continue;
    if (S.Acts[i] == ArgKind::Out)
      Adj.push_back(AllOuts.size() == 1 && RR.V && RR.V->getType() == T ? RR.V : RR.part(RB, K, T));
    ++K;
  }
  if (Adj.empty())
    RB.CreateRetVoid();
  else if (Adj.size() == 1)
    RB.CreateRet(Adj[0]);
  else
    RB.CreateAggregateRet(Adj.data(), Adj.size());
  if (!verified(E, A.NF, S.Fn) || !verified(E, V.NF, S.Fn))
    return {};
  GradientPair GP;
  GP.Augmented = A.NF;
  GP.Reverse = V.NF;
  GP.RetShadowMaybeNull = true; // the user's shadow may be anything
  return GP;
}

} // namespace synthase
