#include "Engine/Clone.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Transforms/Utils/Cloning.h"

using namespace llvm;

namespace synthase {

ClonedBody cloneWithShadows(Engine &E, Function *Src, const Signature &S, ArrayRef<Type *> ExtraParams,
                            Type *RetTy, const Twine &Name, ValueToValueMapTy &VMap) {
  SmallVector<Type *, 16> Params;
  for (Argument &A : Src->args()) {
    Params.push_back(A.getType());
    ArgKind K = S.Acts[A.getArgNo()];
    if (K == ArgKind::Dup || K == ArgKind::DupNoNeed)
      for (unsigned L = 0; L < S.Width; ++L)
        Params.push_back(A.getType());
  }
  unsigned FirstExtra = Params.size();
  Params.append(ExtraParams.begin(), ExtraParams.end());
  auto *FT = FunctionType::get(RetTy, Params, false);
  Function *NF = Function::Create(FT, GlobalValue::InternalLinkage, Name, E.module());
  ClonedBody CB;
  CB.NF = NF;
  unsigned Pos = 0;
  for (Argument &A : Src->args()) {
    Argument *P = NF->getArg(Pos++);
    P->setName(A.getName());
    VMap[&A] = P;
    CB.ArgShadows.emplace_back();
    ArgKind K = S.Acts[A.getArgNo()];
    if (K == ArgKind::Dup || K == ArgKind::DupNoNeed)
      for (unsigned L = 0; L < S.Width; ++L) {
        Argument *Sh = NF->getArg(Pos++);
        Sh->setName("d_" + A.getName());
        CB.ArgShadows.back().push_back(Sh);
      }
  }
  if (FirstExtra < NF->arg_size())
    CB.Extra = NF->getArg(FirstExtra);
  SmallVector<ReturnInst *, 4> Returns;
  CloneFunctionInto(NF, Src, VMap, CloneFunctionChangeType::LocalChangesOnly, Returns);
  NF->setName(Name);
  NF->setLinkage(GlobalValue::InternalLinkage);
  // The copy takes Src's calling convention (often fastcc for internal functions at -O2); the
  // engine's calls use the C convention, and a mismatch is undefined behaviour.
  NF->setCallingConv(CallingConv::C);
  sanitizeAttributes(NF);
  return CB;
}

void sanitizeAttributes(Function *NF) {
  AttributeList Old = NF->getAttributes();
  LLVMContext &C = NF->getContext();
  AttrBuilder FnB(C);
  for (Attribute::AttrKind K : {Attribute::NoUnwind, Attribute::UWTable, Attribute::NoRecurse})
    if (Old.hasFnAttr(K))
      FnB.addAttribute(Old.getFnAttr(K));
  for (StringRef K : {"target-cpu", "target-features", "frame-pointer", "no-trapping-math",
                      "stack-protector-buffer-size", "tune-cpu"})
    if (Old.hasFnAttr(K))
      FnB.addAttribute(Old.getFnAttr(K));
  SmallVector<AttributeSet, 8> ParamAttrs;
  for (unsigned i = 0; i < NF->arg_size(); ++i) {
    AttrBuilder PB(C);
    AttributeSet PS = Old.getParamAttrs(i);
    for (Attribute::AttrKind K : {Attribute::NoAlias, Attribute::NoUndef, Attribute::NonNull,
                                  Attribute::Alignment, Attribute::Dereferenceable})
      if (PS.hasAttribute(K))
        PB.addAttribute(PS.getAttribute(K));
    ParamAttrs.push_back(AttributeSet::get(C, PB));
  }
  NF->setAttributes(AttributeList::get(C, AttributeSet::get(C, FnB), AttributeSet(), ParamAttrs));
}

Value *addDerivatives(IRBuilder<> &B, Value *Acc, Value *V) {
  if (!Acc || isa<ConstantAggregateZero>(Acc) || (isa<ConstantFP>(Acc) && cast<ConstantFP>(Acc)->isZero()))
    return V;
  if (!V)
    return Acc;
  Type *T = Acc->getType();
  if (T->isFPOrFPVectorTy()) {
    // The sign of a zero adjoint is meaningless: nsz lets 0 + x fold to x once slots are promoted.
    auto *Add = B.CreateFAdd(Acc, V);
    if (auto *I = dyn_cast<Instruction>(Add))
      I->setHasNoSignedZeros(true);
    return Add;
  }
  if (auto *ST = dyn_cast<StructType>(T)) {
    Value *R = Acc;
    for (unsigned i = 0; i < ST->getNumElements(); ++i)
      if (carriesDerivative(ST->getElementType(i)))
        R = B.CreateInsertValue(R, addDerivatives(B, B.CreateExtractValue(Acc, i), B.CreateExtractValue(V, i)), i);
    return R;
  }
  if (auto *AT = dyn_cast<ArrayType>(T)) {
    Value *R = Acc;
    for (unsigned i = 0; i < AT->getNumElements(); ++i)
      R = B.CreateInsertValue(R, addDerivatives(B, B.CreateExtractValue(Acc, i), B.CreateExtractValue(V, i)), i);
    return R;
  }
  return Acc;
}

} // namespace synthase
