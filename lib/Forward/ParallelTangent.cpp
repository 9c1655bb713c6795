// Forward mode of an OpenMP parallel region (see ParallelTangent.h).
#include "Forward/ParallelTangent.h"
#include "Rules/OpenMP.h"
#include "Support/Diagnostics.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace synthase {

ForkResult emitTangentFork(Engine &E, const Signature &Caller, CallBase *I, CallBase *C,
                     function_ref<Value *(Value *, unsigned)> Shadow) {
  Function *F = forkMicrotask(I);
  if (!F || F->isDeclaration()) {
    reportError(Caller.Fn, I, "the function of this OpenMP parallel region is not known",
                "the region's outlined function must be in the same module");
    return ForkResult::Failed;
  }
  unsigned W = Caller.Width;
  constexpr unsigned First = 3; // loc, number of captured values, microtask
  // The runtime passes captured values as pointer-sized words: the region's shadows must be
  // pointers too. clang captures shared variables by reference, so floats arrive behind pointers.
  Signature CS{F, DiffMode::Forward, {ArgKind::Const, ArgKind::Const}, W, true, false};
  SmallVector<Value *, 8> Prim, Shadows;
  for (unsigned K = First; K < I->arg_size(); ++K) {
    Value *A = I->getArgOperand(K);
    Value *S0 = A->getType()->isPointerTy() ? Shadow(A, 0) : nullptr;
    if (!S0 && !A->getType()->isPointerTy() && Shadow(A, 0)) {
      reportError(Caller.Fn, I, "a value captured by an OpenMP parallel region carries a derivative but is not passed by reference",
                  "make the variable shared (the default) so clang passes its address");
      return ForkResult::Failed;
    }
    Prim.push_back(C->getArgOperand(K));
    CS.Acts.push_back(S0 ? ArgKind::Dup : ArgKind::Const);
    if (S0)
      for (unsigned L = 0; L < W; ++L)
        Shadows.push_back(Shadow(A, L));
  }
  if (Shadows.empty())
    return ForkResult::Unchanged; // nothing active crosses the region: it runs as it is
  if (F->arg_size() != 2 + Prim.size()) {
    reportError(Caller.Fn, I, "this OpenMP parallel region's function does not take the captured values the fork passes");
    return ForkResult::Failed;
  }
  Function *TF = E.tangentFunction(CS);
  if (!TF)
    return ForkResult::Failed;

  // The forked function: (gtid*, btid*, captured..., shadows...) -> the tangent's interleaved order.
  Module &M = E.module();
  LLVMContext &Ctx = M.getContext();
  SmallVector<Type *, 12> Params{PointerType::getUnqual(Ctx), PointerType::getUnqual(Ctx)};
  for (Value *V : Prim)
    Params.push_back(V->getType());
  for (Value *S : Shadows)
    Params.push_back(S->getType());
  Function *Wrap = Function::Create(FunctionType::get(Type::getVoidTy(Ctx), Params, false),
                                    GlobalValue::InternalLinkage, F->getName() + ".tangent.fork", M);
  Wrap->addFnAttr(Attribute::NoUnwind);
  IRBuilder<> WB(BasicBlock::Create(Ctx, "entry", Wrap));
  SmallVector<Value *, 12> Args{Wrap->getArg(0), Wrap->getArg(1)};
  unsigned NextShadow = 2 + Prim.size();
  for (unsigned K = 0; K < Prim.size(); ++K) {
    Args.push_back(Wrap->getArg(2 + K));
    if (CS.Acts[2 + K] == ArgKind::Dup)
      for (unsigned L = 0; L < W; ++L)
        Args.push_back(Wrap->getArg(NextShadow++));
  }
  WB.CreateCall(TF, Args);
  WB.CreateRetVoid();

  IRBuilder<> B(C);
  SmallVector<Value *, 12> ForkArgs{C->getArgOperand(0), B.getInt32(Prim.size() + Shadows.size()), Wrap};
  ForkArgs.append(Prim.begin(), Prim.end());
  ForkArgs.append(Shadows.begin(), Shadows.end());
  CallInst *NC = B.CreateCall(C->getFunctionType(), C->getCalledOperand(), ForkArgs);
  NC->setDebugLoc(C->getDebugLoc());
  C->eraseFromParent();
  return ForkResult::Replaced;
}

} // namespace synthase
