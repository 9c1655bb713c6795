// Emitting a prepared engine call, and the public generate_enzyme_call built on prepare + emit.
#include "Bridge/EnzymeCall.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace synthase::bridge {

CallInst *emitEnzymeCall(IRBuilderBase &B, const PreparedCall &P, Value *Dest,
                         const CallOptions &Opts) {
  Module &M = *B.GetInsertBlock()->getModule();
  LLVMContext &Ctx = M.getContext();
  if (Opts.CheckSliceLengths)
    for (const SliceLengthCheck &C : P.Checks)
      emitSliceLengthCheck(B, C, P.Label);

  FunctionType *FTy = FunctionType::get(P.RetTy, /*isVarArg=*/true);
  FunctionCallee Entry = M.getOrInsertFunction(P.EntryName, FTy);
  // Until the engine replaces the call, an inliner must not see through the declaration.
  cast<Function>(Entry.getCallee())->addFnAttr(Attribute::NoInline);

  SmallVector<Value *, 16> Ops{P.FnToDiff};
  for (const PlannedOperand &O : P.Operands) {
    switch (O.K) {
    case PlannedOperand::Kind::Marker:
      Ops.push_back(MetadataAsValue::get(Ctx, MDString::get(Ctx, O.Marker)));
      break;
    case PlannedOperand::Kind::Value:
      Ops.push_back(O.V ? O.V : B.getInt64(O.Constant));
      break;
    case PlannedOperand::Kind::Stride:
      Ops.push_back(B.CreateMul(B.getInt64(O.ElemSize), B.CreateZExtOrTrunc(O.V, B.getInt64Ty()),
                                "dualv.stride"));
      break;
    }
  }
  CallInst *Call = B.CreateCall(Entry, Ops);
  if (Dest && !P.RetTy->isVoidTy())
    B.CreateStore(Call, Dest);
  return Call;
}

Expected<CallInst *> generateEnzymeCall(IRBuilderBase &B, Function *FnToDiff, StringRef OuterName,
                                        Type *RetTy, ArrayRef<Value *> OuterArgs,
                                        const AutoDiffAttrs &Attrs, Value *Dest,
                                        const CallOptions &Opts) {
  BasicBlock *BB = B.GetInsertBlock();
  std::string Label = itemLabel(FnToDiff ? FnToDiff->getName() : "<null>",
                                BB && BB->getParent() ? BB->getParent()->getName() : OuterName);
  if (!BB || !BB->getParent())
    return createStringError(Label + ": the builder is not positioned inside a function");
  auto P = prepareEnzymeCall(*BB->getModule(), FnToDiff, OuterName, RetTy, OuterArgs, Attrs,
                             Label);
  if (!P)
    return P.takeError();
  return emitEnzymeCall(B, *P, Dest, Opts);
}

} // namespace synthase::bridge
