// Batch mode: `__enzyme_batch(f, enzyme_width, N, ...)` runs the primal f for N lanes. Each of f's
// parameters is
//   enzyme_vector  v0 .. vN-1       one value per lane (the default when N > 1)
//   enzyme_scalar  v                one value shared by every lane
//   enzyme_buffer  stride, p        lane k gets p + k * stride bytes
// and the N results come back in lane order, in whatever type the call declares (a struct of N
// fields, an array, an sret buffer). The lanes are N calls of f, in lane order: Enzyme's batched
// function gives the same values, and each call is optimized (and vectorized) as f is.
#include "CallSite/DiffCall.h"
#include "Support/Diagnostics.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace synthase {

static bool isBatchEntry(const Function &F) {
  StringRef N = F.getName();
  return F.isDeclaration() && (N.starts_with("__enzyme_batch") ||
                               (N.starts_with("_Z") && N.contains("__enzyme_batch")));
}

/// Lowers one call; false after a diagnostic.
static bool lowerBatch(CallBase *CB) {
  Function *Caller = CB->getFunction();
  auto fail = [&](const Twine &Msg, const Twine &Hint = "") {
    reportError(Caller, CB, "__enzyme_batch: " + Msg, Hint);
    return false;
  };
  unsigned Op = 0, NOps = CB->arg_size();
  Value *SRet = nullptr;
  if (NOps > 0 && CB->paramHasAttr(0, Attribute::StructRet))
    SRet = CB->getArgOperand(Op++);
  Function *F = Op < NOps ? differentiatedFunction(CB->getArgOperand(Op++)) : nullptr;
  if (!F)
    return fail("the first argument is not a function known at compile time",
                "pass the function itself, e.g. (void*)f");
  if (F->isVarArg())
    return fail("cannot batch variadic function '" + F->getName() + "'");
  unsigned W = 1;
  if (Op < NOps && markerName(CB->getArgOperand(Op)) == "enzyme_width") {
    auto *C = Op + 1 < NOps ? dyn_cast<ConstantInt>(CB->getArgOperand(Op + 1)) : nullptr;
    if (!C || C->isZero() || C->getZExtValue() > 64)
      return fail("enzyme_width must be followed by a constant between 1 and 64");
    W = C->getZExtValue();
    Op += 2;
  }
  IRBuilder<> B(CB);
  B.SetCurrentDebugLocation(CB->getDebugLoc());
  // Lanes[k] = the arguments of lane k.
  std::vector<SmallVector<Value *, 8>> Lanes(W);
  // f returns a large struct through a hidden pointer: lane k writes the k-th element of the
  // call's own result buffer, which must hold N of them.
  bool FnSRet = F->arg_size() > 0 && F->hasParamAttribute(0, Attribute::StructRet);
  if (FnSRet) {
    Type *ST = F->getParamStructRetType(0);
    const DataLayout &DL = CB->getModule()->getDataLayout();
    uint64_t Need = W * DL.getTypeAllocSize(ST).getFixedValue();
    if (!SRet || DL.getTypeAllocSize(CB->getParamStructRetType(0)).getFixedValue() < Need)
      return fail("'" + F->getName() + "' returns '" + printType(ST) + "' through a hidden pointer, and the call's "
                      "declared result does not hold " + Twine(W) + " of them",
                  "declare __enzyme_batch to return a struct of " + Twine(W) + " such results");
    for (unsigned k = 0; k < W; ++k)
      Lanes[k].push_back(B.CreateConstInBoundsGEP1_64(ST, SRet, k));
  }
  for (Argument &A : F->args()) {
    if (FnSRet && A.getArgNo() == 0)
      continue;
    Type *PT = A.getType();
    StringRef M = Op < NOps ? markerName(CB->getArgOperand(Op)) : "";
    enum { Vector, Scalar, Buffer } K = W > 1 ? Vector : Scalar;
    if (!M.empty()) {
      if (M == "enzyme_vector") K = Vector;
      else if (M == "enzyme_scalar") K = Scalar;
      else if (M == "enzyme_buffer") K = Buffer;
      else
        return fail("unknown marker '" + M + "' before argument " + Twine(A.getArgNo()) + " of '" +
                        F->getName() + "'",
                    "known markers: enzyme_width, enzyme_vector, enzyme_scalar, enzyme_buffer");
      ++Op;
    }
    Value *Stride = nullptr;
    if (K == Buffer) {
      Stride = Op < NOps ? CB->getArgOperand(Op++) : nullptr;
      if (!Stride || !Stride->getType()->isIntegerTy() || !markerName(Stride).empty())
        return fail("enzyme_buffer must be followed by a byte stride (argument " + Twine(A.getArgNo()) + ")",
                    "enzyme_buffer, stride_in_bytes, pointer");
      if (!PT->isPointerTy())
        return fail("enzyme_buffer needs a pointer parameter (argument " + Twine(A.getArgNo()) + " of '" +
                    F->getName() + "')");
    }
    unsigned Need = K == Vector ? W : 1;
    for (unsigned L = 0; L < Need; ++L) {
      if (Op >= NOps)
        return fail("too few arguments: argument " + Twine(A.getArgNo()) + " of '" + F->getName() + "'" +
                        (K == Vector ? " needs " + Twine(W) + " values, one per lane" : Twine("")) + " is missing",
                    "enzyme_vector takes one value per lane, enzyme_scalar one value for all lanes");
      Value *V = CB->getArgOperand(Op++);
      if (!markerName(V).empty())
        return fail("marker '" + markerName(V) + "' where argument " + Twine(A.getArgNo()) + " of '" +
                    F->getName() + "' was expected");
      Value *C = convertTo(B, V, PT);
      if (!C)
        return fail("argument " + Twine(A.getArgNo()) + " of '" + F->getName() + "' has type '" +
                    printType(V->getType()) + "', the parameter '" + printType(PT) + "'");
      if (K == Vector) {
        Lanes[L].push_back(C);
      } else if (K == Scalar) {
        for (auto &Args : Lanes)
          Args.push_back(C);
      } else {
        Value *S = B.CreateSExtOrTrunc(Stride, B.getInt64Ty());
        for (unsigned k = 0; k < W; ++k)
          Lanes[k].push_back(k ? B.CreateGEP(B.getInt8Ty(), C, B.CreateMul(S, B.getInt64(k))) : C);
      }
    }
  }
  if (Op < NOps)
    return fail("too many arguments: '" + F->getName() + "' has " + Twine(F->arg_size()) +
                    " parameters; extra operand " + printInstruction(CB->getArgOperand(Op)),
                "with enzyme_width N each enzyme_vector parameter takes exactly N values");
  SmallVector<Value *, 8> Results;
  for (auto &Args : Lanes) {
    CallInst *R = B.CreateCall(F->getFunctionType(), F, Args);
    R->setCallingConv(F->getCallingConv());
    Results.push_back(R);
  }
  Type *RT = F->getReturnType();
  Type *Declared = SRet ? CB->getParamStructRetType(0) : CB->getType();
  if (RT->isVoidTy() || Declared->isVoidTy() || FnSRet) {
    if (!CB->getType()->isVoidTy())
      CB->replaceAllUsesWith(Constant::getNullValue(CB->getType()));
    return true;
  }
  // The N results in natural layout ([N x RT]), read back as the declared type.
  const DataLayout &DL = CB->getModule()->getDataLayout();
  auto *AT = ArrayType::get(RT, W);
  uint64_t Have = DL.getTypeAllocSize(Declared), Want = DL.getTypeAllocSize(AT);
  if (Have < Want || (W == 1 && Declared == RT && !SRet)) {
    if (W == 1 && Declared == RT && !SRet) {
      CB->replaceAllUsesWith(Results[0]);
      return true;
    }
    return fail("the call is declared to return '" + printType(Declared) + "' (" + Twine(Have) +
                    " bytes), which cannot hold the " + Twine(W) + " results of '" + F->getName() +
                    "' (" + Twine(W) + " x " + printType(RT) + ")",
                "declare __enzyme_batch to return a struct with one field per lane");
  }
  Value *Buf = SRet;
  if (!Buf) {
    IRBuilder<> EB(&*Caller->getEntryBlock().getFirstInsertionPt());
    auto *AI = EB.CreateAlloca(ArrayType::get(EB.getInt8Ty(), Have), nullptr, "synthase.batch");
    AI->setAlignment(Align(16));
    Buf = AI;
  }
  for (unsigned L = 0; L < W; ++L)
    B.CreateStore(Results[L], B.CreateConstInBoundsGEP2_32(AT, Buf, 0, L));
  if (!SRet)
    CB->replaceAllUsesWith(B.CreateLoad(Declared, Buf));
  else if (!CB->getType()->isVoidTy())
    CB->replaceAllUsesWith(PoisonValue::get(CB->getType()));
  return true;
}

bool lowerBatchCalls(Module &M) {
  SmallVector<CallBase *, 8> Calls;
  for (Function &F : M)
    if (isBatchEntry(F))
      for (User *U : F.users())
        if (auto *CB = dyn_cast<CallBase>(U); CB && CB->getCalledOperand()->stripPointerCasts() == &F)
          Calls.push_back(CB);
  for (CallBase *CB : Calls) {
    SetVector<Value *> Ops(CB->arg_begin(), CB->arg_end()); // one value may be several operands
    if (!lowerBatch(CB) && !CB->getType()->isVoidTy())
      CB->replaceAllUsesWith(PoisonValue::get(CB->getType()));
    if (auto *II = dyn_cast<InvokeInst>(CB)) {
      II->getUnwindDest()->removePredecessor(II->getParent());
      BranchInst::Create(II->getNormalDest(), II->getIterator());
    }
    CB->eraseFromParent();
    for (Value *V : Ops)
      if (auto *I = dyn_cast<Instruction>(V); I && I->use_empty() && !I->mayHaveSideEffects())
        I->eraseFromParent();
  }
  return !Calls.empty();
}

} // namespace synthase
