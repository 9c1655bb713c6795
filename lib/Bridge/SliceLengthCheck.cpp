// The runtime guard the seed left as a FIXME: a duplicated slice's shadow must be long enough to
// receive every derivative, or the engine would write past its end.
#include "Bridge/EnzymeCall.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace synthase::bridge {

/// printf treats '%' specially; function names may contain it.
static std::string escapePercent(StringRef S) {
  std::string Out;
  for (char C : S) {
    Out += C;
    if (C == '%')
      Out += '%';
  }
  return Out;
}

static void emitFailure(IRBuilderBase &B, const SliceLengthCheck &C, StringRef Label,
                        Value *ShadowLen, Value *Needed) {
  Module &M = *B.GetInsertBlock()->getModule();
  std::string Lane = C.Factor == 1 ? " (lane " + std::to_string(C.Lane) + ")" : "";
  std::string Fmt = "synthase: " + escapePercent(Label) + ": the shadow of slice input #" +
                    std::to_string(C.Activity) + Lane +
                    " has %llu elements but needs at least %llu; pass a shadow slice at least "
                    "as long as its primal" +
                    (C.Factor > 1 ? " times the width" : "") + "\n";
  // dprintf writes straight to fd 2, so no stdio stream object is needed (Rust has none).
  FunctionCallee DPrintf = M.getOrInsertFunction(
      "dprintf", FunctionType::get(B.getInt32Ty(), {B.getInt32Ty(), B.getPtrTy()}, true));
  FunctionCallee Abort = M.getOrInsertFunction("abort", B.getVoidTy());
  if (auto *AbortFn = dyn_cast<Function>(Abort.getCallee()))
    AbortFn->setDoesNotReturn();
  B.CreateCall(DPrintf, {B.getInt32(2), B.CreateGlobalString(Fmt, "synthase.slice.msg"),
                         ShadowLen, Needed});
  B.CreateCall(Abort)->setDoesNotReturn();
  B.CreateUnreachable();
}

void emitSliceLengthCheck(IRBuilderBase &B, const SliceLengthCheck &C, StringRef Label) {
  LLVMContext &Ctx = B.getContext();
  BasicBlock *BB = B.GetInsertBlock();
  Function *F = BB->getParent();
  Value *Primal = B.CreateZExtOrTrunc(C.PrimalLen, B.getInt64Ty());
  Value *Needed = C.Factor == 1 ? Primal : B.CreateMul(Primal, B.getInt64(C.Factor));
  Value *Shadow = B.CreateZExtOrTrunc(C.ShadowLen, B.getInt64Ty());
  Value *TooShort = B.CreateICmpULT(Shadow, Needed, "shadow.too.short");

  BasicBlock *Ok;
  if (B.GetInsertPoint() == BB->end()) {
    Ok = BasicBlock::Create(Ctx, "slice.length.ok", F);
  } else {
    Ok = BB->splitBasicBlock(B.GetInsertPoint(), "slice.length.ok");
    BB->getTerminator()->eraseFromParent();
  }
  BasicBlock *Fail = BasicBlock::Create(Ctx, "slice.length.fail", F, Ok);
  B.SetInsertPoint(BB);
  B.CreateCondBr(TooShort, Fail, Ok, MDBuilder(Ctx).createUnlikelyBranchWeights());
  B.SetInsertPoint(Fail);
  emitFailure(B, C, Label, Shadow, Needed);
  B.SetInsertPoint(Ok, Ok->begin());
}

} // namespace synthase::bridge
