// Indirect calls: trampolines in the clones, dispatchers as their derivatives (see the header).
#include "Engine/FunctionShadows.h"
#include "Analysis/UserAnnotations.h"
#include "Bridge/DiagnosticCapture.h"
#include "Reverse/Tape.h"
#include "Support/Diagnostics.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace synthase {

namespace {
constexpr const char *WrapperAttr = "synthase-indirect-wrapper";

/// The call a trampoline makes (its only instruction before the return).
CallInst *innerCall(Function &T) { return cast<CallInst>(&T.getEntryBlock().front()); }

using MemoryParams = SmallVector<std::pair<unsigned, Attribute>, 2>;

/// The parameters a call passes in memory (sret, byval), with their attributes: the callee's ABI
/// depends on them (where the result's address is returned, who copies the value), so the
/// trampoline's inner call must carry those of the calls it stands for.
MemoryParams memoryParams(const CallBase *C) {
  MemoryParams R;
  for (unsigned K = 0; K < C->arg_size(); ++K)
    for (Attribute::AttrKind A : {Attribute::StructRet, Attribute::ByVal})
      if (C->paramHasAttr(K, A))
        R.push_back({K, C->getParamAttr(K, A)});
  return R;
}

/// One trampoline per function type and set of parameters passed in memory.
Function *trampolineFor(Module &M, FunctionType *FTy, const MemoryParams &InMemory) {
  SmallVector<Type *, 8> Params{PointerType::getUnqual(M.getContext())};
  Params.append(FTy->param_begin(), FTy->param_end());
  auto *TT = FunctionType::get(FTy->getReturnType(), Params, false);
  for (Function &F : M)
    if (isIndirectTrampoline(&F) && F.getFunctionType() == TT && memoryParams(innerCall(F)) == InMemory)
      return &F;
  Function *T = Function::Create(TT, GlobalValue::InternalLinkage, "synthase.indirect", M);
  T->addFnAttr(IndirectTrampolineAttr);
  IRBuilder<> B(BasicBlock::Create(M.getContext(), "entry", T));
  SmallVector<Value *, 8> Args;
  for (unsigned K = 1; K < T->arg_size(); ++K)
    Args.push_back(T->getArg(K));
  CallInst *R = B.CreateCall(FTy, T->getArg(0), Args);
  for (auto &[K, A] : InMemory)
    R->addParamAttr(K, A);
  if (R->getType()->isVoidTy())
    B.CreateRetVoid();
  else
    B.CreateRet(R);
  return T;
}

bool mayCarryDerivatives(Type *T) { return T->isPointerTy() || carriesDerivative(T); }
} // namespace

void routeIndirectCalls(Function &F) {
  SmallVector<CallInst *, 8> Calls;
  for (Instruction &I : instructions(F))
    if (auto *CI = dyn_cast<CallInst>(&I))
      if (CI->isIndirectCall() && !CI->isInlineAsm() && !CI->getFunctionType()->isVarArg() &&
          !CI->isMustTailCall() && CI->getNumOperandBundles() == 0 &&
          (mayCarryDerivatives(CI->getType()) ||
           any_of(CI->args(), [](Use &U) { return mayCarryDerivatives(U->getType()); })))
        Calls.push_back(CI);
  for (CallInst *CI : Calls) {
    // inalloca / preallocated arguments live in the caller's argument area, which a trampoline
    // cannot pass on: left as they are (an active one is refused as an indirect call).
    bool CallerArea = false;
    for (unsigned K = 0; K < CI->arg_size(); ++K)
      CallerArea |= CI->isInAllocaArgument(K) || CI->paramHasAttr(K, Attribute::Preallocated);
    if (CallerArea)
      continue;
    Function *T = trampolineFor(*F.getParent(), CI->getFunctionType(), memoryParams(CI));
    SmallVector<Value *, 8> Args{CI->getCalledOperand()};
    Args.append(CI->arg_begin(), CI->arg_end());
    auto *NC = CallInst::Create(T, Args, "", CI->getIterator());
    NC->takeName(CI);
    NC->setDebugLoc(CI->getDebugLoc());
    CI->replaceAllUsesWith(NC);
    CI->eraseFromParent();
  }
}

bool onlyReachesCode(const Value *V) {
  SmallVector<const Value *, 8> Work{V};
  SmallPtrSet<const Value *, 16> Seen{V};
  while (!Work.empty()) {
    const Value *P = Work.pop_back_val();
    for (const Use &U : P->uses()) {
      const User *Us = U.getUser();
      if (auto *CB = dyn_cast<CallBase>(Us)) {
        if (CB->isCallee(&U))
          continue;
        if (isIndirectTrampoline(CB->getCalledFunction()) && U.getOperandNo() == 0)
          continue;
        return false;
      }
      if (isa<ICmpInst>(Us))
        continue;
      if (auto *L = dyn_cast<LoadInst>(Us)) {
        if (L->getType()->isIntOrIntVectorTy())
          continue; // offsets in a vtable (offset-to-top, virtual base offsets)
        if (L->getType()->isPointerTy() && Seen.insert(L).second)
          Work.push_back(L);
        if (L->getType()->isPointerTy())
          continue;
        return false;
      }
      if ((isa<GetElementPtrInst>(Us) || isa<BitCastInst>(Us) || isa<PHINode>(Us) || isa<SelectInst>(Us)) &&
          Us->getType()->isPointerTy()) {
        if (auto *G = dyn_cast<GetElementPtrInst>(Us); G && G->getPointerOperand() != P)
          return false;
        if (Seen.insert(Us).second)
          Work.push_back(Us);
        if (Seen.size() > 64)
          return false;
        continue;
      }
      return false;
    }
  }
  return true;
}

void Engine::forgetFailed() {
  for (auto It = Tangents.begin(); It != Tangents.end();)
    It = !It->second || It->second->isDeclaration() ? Tangents.erase(It) : std::next(It);
  for (auto It = Gradients.begin(); It != Gradients.end();)
    It = !It->second.Augmented || It->second.Augmented->isDeclaration() ? Gradients.erase(It) : std::next(It);
}

namespace {

/// One possible target of an indirect call and how its branch of the dispatcher behaves.
struct Candidate {
  Function *Target;            // compared with the primal pointer
  Function *Body = nullptr;    // what is differentiated (Target, or a wrapper of a declaration)
  bool Inactive = false;       // enzyme_inactive: runs as is, zero derivative
  Function *Tangent = nullptr; // forward mode
  GradientPair Pair;           // reverse mode
  std::string Failure;         // why its derivative does not exist (its branch aborts)
};

/// A declaration in a table (`sin`, a registered function) is differentiated through a wrapper
/// whose body calls it, so the rule table and custom derivatives apply.
Function *bodyFor(Function *F) {
  if (!F->isDeclaration() || hasCustomDerivative(F))
    return F;
  Module &M = *F->getParent();
  std::string Name = ("synthase.wrap." + F->getName()).str();
  if (Function *W = M.getFunction(Name))
    return W;
  Function *W = Function::Create(F->getFunctionType(), GlobalValue::InternalLinkage, Name, M);
  W->addFnAttr(WrapperAttr);
  IRBuilder<> B(BasicBlock::Create(M.getContext(), "entry", W));
  SmallVector<Value *, 8> Args;
  for (Argument &A : W->args())
    Args.push_back(&A);
  CallInst *R = B.CreateCall(F, Args);
  if (R->getType()->isVoidTy())
    B.CreateRetVoid();
  else
    B.CreateRet(R);
  return W;
}

SmallVector<Candidate, 8> candidatesFor(Engine &E, FunctionType *FTy) {
  SmallVector<Candidate, 8> Out;
  for (Function &F : E.module()) {
    if (F.getFunctionType() != FTy || F.isIntrinsic() || isIndirectTrampoline(&F) ||
        F.hasFnAttribute(WrapperAttr) || E.generated().count(&F) || F.getName().starts_with("__enzyme") ||
        F.getName().contains(".synthase."))
      continue;
    if (!F.hasAddressTaken(nullptr, /*IgnoreCallbackUses=*/false, /*IgnoreAssumeLikeCalls=*/true,
                           /*IgnoreLLVMUsed=*/true))
      continue;
    Candidate C{&F};
    // A stream manipulator (std::endl, marked by markInactiveLibraryDefinitions) reached through
    // operator<<'s function pointer formats characters only, as when it is called directly.
    C.Inactive = isInactiveCallee(&F);
    Out.push_back(C);
  }
  return Out;
}

/// The call the diagnostics point at: one trampoline call inside a clone.
const CallBase *exampleCall(Function *T) {
  const CallBase *Any = nullptr;
  for (User *U : T->users())
    if (auto *CB = dyn_cast<CallBase>(U); CB && CB->getFunction()->getName().contains(".synthase.primal")) {
      if (CB->getDebugLoc())
        return CB;
      Any = Any ? Any : CB;
    }
  return Any;
}

const Function *sourceOf(Engine &E, const CallBase *CB) {
  if (!CB)
    return nullptr;
  const Function *F = CB->getFunction();
  StringRef N = F->getName();
  if (size_t Cut = N.find(".synthase.primal"); Cut != StringRef::npos)
    if (const Function *Orig = E.module().getFunction(N.substr(0, Cut)))
      return Orig;
  return F;
}

std::string typeText(FunctionType *FTy) {
  std::string S;
  raw_string_ostream OS(S);
  FTy->print(OS);
  return S;
}

/// Differentiates one candidate with its errors captured: a target the program may never
/// reach must not fail the build, so its branch aborts at run time instead; nor warn about it
/// (an abstract class's deleting destructor, which traps).
template <typename Gen> void generate(Engine &E, Candidate &C, Gen G) {
  bridge::DiagnosticCapture Cap(E.module().getContext(), /*DropWarnings=*/true);
  bool OK = G();
  if (!OK || Cap.errors()) {
    StringRef Msg = Cap.messages();
    Msg = Msg.split('\n').first;
    Msg.consume_front("synthase: ");
    C.Failure = Msg.empty() ? "its derivative could not be generated" : Msg.str();
    E.forgetFailed(); // a direct use elsewhere regenerates and reports it
  }
}


/// Compares Fp with each candidate and lets Branch fill the block of the one it equals; an
/// unknown target aborts. Returns the blocks in candidate order (null for a skipped one).
void emitSelect(IRBuilder<> &B, Function *NF, Value *Fp, ArrayRef<Candidate> Cands, StringRef Where,
                function_ref<void(IRBuilder<> &, unsigned)> Branch) {
  Module &M = *NF->getParent();
  LLVMContext &Ctx = M.getContext();
  for (unsigned K = 0; K < Cands.size(); ++K) {
    BasicBlock *Hit = BasicBlock::Create(Ctx, "target." + Cands[K].Target->getName(), NF);
    BasicBlock *Next = BasicBlock::Create(Ctx, "next", NF);
    B.CreateCondBr(B.CreateICmpEQ(Fp, Cands[K].Target), Hit, Next);
    IRBuilder<> HB(Hit);
    if (!Cands[K].Failure.empty())
      emitAbort(HB, M, "in '" + Where + "': an indirect call reached '" + displayName(Cands[K].Target->getName()) +
                           "', whose derivative could not be generated: " + Cands[K].Failure);
    else
      Branch(HB, K);
    B.SetInsertPoint(Next);
  }
  emitAbort(B, M, "in '" + Where + "': an indirect call on active data reached a function with no derivative "
                  "in this module (defined in another translation unit or a library; compile with -flto, "
                  "or call it directly)");
}

/// Parameter layout shared by the dispatchers: per trampoline parameter its value, then Lanes
/// shadows when Dup. Groups[k] are the dispatcher's arguments for parameter k.
SmallVector<Type *, 16> shadowedParams(Function *T, const Signature &S, unsigned Lanes) {
  SmallVector<Type *, 16> P;
  for (Argument &A : T->args()) {
    P.push_back(A.getType());
    ArgKind K = S.Acts[A.getArgNo()];
    if (K == ArgKind::Dup || K == ArgKind::DupNoNeed)
      P.append(Lanes, A.getType());
  }
  return P;
}

/// Arguments of NF after the function pointer's group, up to (excluding) the trailing Extra ones.
SmallVector<Value *, 16> forwardedArgs(Function *NF, const Signature &S, unsigned Lanes, unsigned Extra) {
  unsigned Skip = 1 + ((S.Acts[0] == ArgKind::Dup || S.Acts[0] == ArgKind::DupNoNeed) ? Lanes : 0);
  SmallVector<Value *, 16> Args;
  for (unsigned K = Skip; K + Extra < NF->arg_size(); ++K)
    Args.push_back(NF->getArg(K));
  return Args;
}

bool reportNoTarget(Engine &E, const Signature &S, ArrayRef<Candidate> Cands) {
  if (any_of(Cands, [](const Candidate &C) { return C.Failure.empty(); }))
    return false;
  const CallBase *CB = exampleCall(S.Fn);
  FunctionType *FTy = cast<CallBase>(&*S.Fn->getEntryBlock().begin())->getFunctionType();
  if (Cands.empty()) {
    reportError(sourceOf(E, CB), CB,
                "cannot differentiate an indirect call on active data: no function of type '" + typeText(FTy) +
                    "' has its address taken in this module",
                "define the possible targets in this translation unit (or link with -flto and the plugin), or "
                "call the function directly");
    return true;
  }
  std::string Why;
  for (const Candidate &C : Cands)
    Why += "\n  candidate '" + displayName(C.Target->getName()) + "': " + C.Failure;
  reportError(sourceOf(E, CB), CB,
              "cannot differentiate an indirect call on active data: no possible target of type '" + typeText(FTy) +
                  "' could be differentiated" + Why,
              "make the targets differentiable, or register custom derivatives for them");
  return true;
}

void dropDispatcher(Function *F) {
  if (!F)
    return;
  F->deleteBody();
  F->setLinkage(GlobalValue::ExternalLinkage);
}

} // namespace

Function *indirectTangent(Engine &E, const Signature &S, function_ref<void(Function *)> Register) {
  Module &M = E.module();
  Function *T = S.Fn;
  FunctionType *FTy = cast<CallBase>(&*T->getEntryBlock().begin())->getFunctionType();
  Type *RT = FTy->getReturnType();
  SmallVector<Type *, 5> RetParts;
  if (!RT->isVoidTy()) {
    if (S.RetPrimal)
      RetParts.push_back(RT);
    if (S.RetActive)
      RetParts.append(S.Width, RT);
  }
  Type *NRT = RetParts.empty()       ? Type::getVoidTy(M.getContext())
              : RetParts.size() == 1 ? RetParts[0]
                                     : StructType::get(M.getContext(), RetParts);
  Function *NF = Function::Create(FunctionType::get(NRT, shadowedParams(T, S, S.Width), false),
                                  GlobalValue::InternalLinkage, "fwddiffe_indirect", M);
  Register(NF);
  Signature CS = S;
  CS.Acts.erase(CS.Acts.begin());
  SmallVector<Value *, 16> Args = forwardedArgs(NF, S, S.Width, 0);
  SmallVector<Type *, 16> ArgTys;
  for (Value *A : Args)
    ArgTys.push_back(A->getType());
  auto *Want = FunctionType::get(NRT, ArgTys, false);
  SmallVector<Candidate, 8> Cands = candidatesFor(E, FTy);
  for (Candidate &C : Cands) {
    if (C.Inactive)
      continue;
    C.Body = bodyFor(C.Target);
    CS.Fn = C.Body;
    generate(E, C, [&] {
      C.Tangent = E.tangentFunction(CS);
      return C.Tangent && C.Tangent->getFunctionType() == Want;
    });
  }
  if (reportNoTarget(E, S, Cands)) {
    dropDispatcher(NF);
    return nullptr;
  }
  std::string Where = displayName(T->getName());
  if (const Function *Src = sourceOf(E, exampleCall(T)))
    Where = displayName(Src->getName());
  LLVMContext &Ctx = M.getContext();
  IRBuilder<> B(BasicBlock::Create(Ctx, "entry", NF));
  BasicBlock *Merge = BasicBlock::Create(Ctx, "merge", NF);
  IRBuilder<> MB(Merge);
  PHINode *Phi = NRT->isVoidTy() ? nullptr : MB.CreatePHI(NRT, Cands.size(), "result");
  if (Phi)
    MB.CreateRet(Phi);
  else
    MB.CreateRetVoid();
  emitSelect(B, NF, NF->getArg(0), Cands, Where, [&](IRBuilder<> &HB, unsigned K) {
    Candidate &C = Cands[K];
    Value *R;
    if (C.Inactive) {
      SmallVector<Value *, 8> Prim; // the primal arguments only: inactive code gets no shadows
      unsigned Pos = 0;
      for (unsigned A = 1; A < S.Acts.size(); ++A) {
        Prim.push_back(Args[Pos++]);
        if (S.Acts[A] == ArgKind::Dup || S.Acts[A] == ArgKind::DupNoNeed)
          Pos += S.Width;
      }
      Value *P = HB.CreateCall(C.Target, Prim);
      R = PoisonValue::get(NRT);
      if (RetParts.size() == 1)
        R = S.RetPrimal ? P : Constant::getNullValue(RT);
      else
        for (unsigned I = 0; I < RetParts.size(); ++I)
          R = HB.CreateInsertValue(R, I == 0 && S.RetPrimal ? P : Constant::getNullValue(RT), I);
    } else {
      R = HB.CreateCall(C.Tangent, Args);
    }
    if (Phi)
      Phi->addIncoming(R, HB.GetInsertBlock());
    HB.CreateBr(Merge);
  });
  return NF;
}

GradientPair indirectGradient(Engine &E, const Signature &S, function_ref<void(GradientPair)> Register) {
  Module &M = E.module();
  LLVMContext &Ctx = M.getContext();
  Function *T = S.Fn;
  FunctionType *FTy = cast<CallBase>(&*T->getEntryBlock().begin())->getFunctionType();
  Type *RT = FTy->getReturnType();
  Type *Ptr = PointerType::getUnqual(Ctx);
  // The same shapes GradientGen gives any callee (Reverse/Gradient.cpp), with fp in front.
  SmallVector<Type *, 16> AP = shadowedParams(T, S, 1);
  SmallVector<Type *, 16> RP = AP;
  AP.push_back(Ptr);
  Type *ART = S.RetShadow ? (Type *)StructType::get(RT, RT) : RT;
  if (S.RetActive)
    RP.push_back(RT);
  RP.push_back(Ptr);
  SmallVector<Type *, 8> Outs;
  for (unsigned K = 0; K < S.Acts.size(); ++K)
    if (S.Acts[K] == ArgKind::Out)
      Outs.push_back(FTy->getParamType(K - 1));
  Type *ORT = Outs.empty() ? Type::getVoidTy(Ctx) : Outs.size() == 1 ? Outs[0] : StructType::get(Ctx, Outs);
  GradientPair D;
  D.Augmented = Function::Create(FunctionType::get(ART, AP, false), GlobalValue::InternalLinkage, "augmented_indirect", M);
  D.Reverse = Function::Create(FunctionType::get(ORT, RP, false), GlobalValue::InternalLinkage, "reverse_indirect", M);
  Register(D);
  Value *TapeA = D.Augmented->getArg(D.Augmented->arg_size() - 1);
  Value *TapeR = D.Reverse->getArg(D.Reverse->arg_size() - 1);
  SmallVector<Value *, 16> AArgs = forwardedArgs(D.Augmented, S, 1, 1); // without the tape
  SmallVector<Value *, 16> RArgs = forwardedArgs(D.Reverse, S, 1, 1);   // with dret, without the tape
  SmallVector<Type *, 16> ATys, RTys;
  for (Value *A : AArgs)
    ATys.push_back(A->getType());
  for (Value *A : RArgs)
    RTys.push_back(A->getType());
  ATys.push_back(Ptr);
  RTys.push_back(Ptr);
  auto *WantA = FunctionType::get(ART, ATys, false), *WantR = FunctionType::get(ORT, RTys, false);

  Signature CS = S;
  CS.Acts.erase(CS.Acts.begin());
  CS.TopLevel = false;
  SmallVector<Candidate, 8> Cands = candidatesFor(E, FTy);
  for (Candidate &C : Cands) {
    if (C.Inactive)
      continue;
    C.Body = bodyFor(C.Target);
    CS.Fn = C.Body;
    generate(E, C, [&] {
      C.Pair = E.gradientPair(CS);
      return C.Pair.Augmented && C.Pair.Augmented->getFunctionType() == WantA &&
             C.Pair.Reverse->getFunctionType() == WantR;
    });
  }
  if (reportNoTarget(E, S, Cands)) {
    dropDispatcher(D.Augmented);
    dropDispatcher(D.Reverse);
    return {};
  }
  std::string Where = displayName(T->getName());
  if (const Function *Src = sourceOf(E, exampleCall(T)))
    Where = displayName(Src->getName());
  unsigned Viable = count_if(Cands, [](const Candidate &C) { return C.Failure.empty(); });
  bool TapeIndex = Viable > 1; // which target ran, for the reverse sweep
  D.RetShadowMaybeNull = false;

  // Forward sweep: the target's augmented sweep, then its index on the tape.
  IRBuilder<> B(BasicBlock::Create(Ctx, "entry", D.Augmented));
  BasicBlock *Merge = BasicBlock::Create(Ctx, "merge", D.Augmented);
  IRBuilder<> MB(Merge);
  PHINode *Phi = ART->isVoidTy() ? nullptr : MB.CreatePHI(ART, Cands.size(), "result");
  if (Phi)
    MB.CreateRet(Phi);
  else
    MB.CreateRetVoid();
  emitSelect(B, D.Augmented, D.Augmented->getArg(0), Cands, Where, [&](IRBuilder<> &HB, unsigned K) {
    Candidate &C = Cands[K];
    Value *R;
    if (C.Inactive) {
      SmallVector<Value *, 8> Prim;
      unsigned Pos = 0;
      for (unsigned A = 1; A < S.Acts.size(); ++A) {
        Prim.push_back(AArgs[Pos++]);
        if (S.Acts[A] == ArgKind::Dup || S.Acts[A] == ArgKind::DupNoNeed)
          ++Pos;
      }
      R = HB.CreateCall(C.Target, Prim);
      if (S.RetShadow) { // an inactive function's pointer has no shadow
        R = HB.CreateInsertValue(HB.CreateInsertValue(PoisonValue::get(ART), R, 0), Constant::getNullValue(RT), 1);
        D.RetShadowMaybeNull = true;
      }
    } else {
      SmallVector<Value *, 16> Args = AArgs;
      Args.push_back(TapeA);
      R = HB.CreateCall(C.Pair.Augmented, Args);
      D.RetShadowMaybeNull |= C.Pair.RetShadowMaybeNull;
    }
    if (Phi)
      Phi->addIncoming(R, HB.GetInsertBlock());
    BranchInst *Br = HB.CreateBr(Merge);
    if (TapeIndex)
      emitTapePush(E, Br, TapeA, ConstantInt::get(Type::getInt32Ty(Ctx), K));
    if (Phi) // the push may have split the block
      Phi->setIncomingBlock(Phi->getNumIncomingValues() - 1, Br->getParent());
  });

  // Reverse sweep: the reverse of the target that ran.
  IRBuilder<> RB(BasicBlock::Create(Ctx, "entry", D.Reverse));
  BasicBlock *RMerge = BasicBlock::Create(Ctx, "merge", D.Reverse);
  IRBuilder<> RMB(RMerge);
  PHINode *RPhi = ORT->isVoidTy() ? nullptr : RMB.CreatePHI(ORT, Cands.size(), "adjoints");
  if (RPhi)
    RMB.CreateRet(RPhi);
  else
    RMB.CreateRetVoid();
  BasicBlock *Unreachable = BasicBlock::Create(Ctx, "unreachable", D.Reverse);
  new UnreachableInst(Ctx, Unreachable);
  Value *Idx = TapeIndex ? emitTapePop(E, RB, TapeR, RB.getInt32Ty()) : nullptr;
  SwitchInst *Sw = TapeIndex ? RB.CreateSwitch(Idx, Unreachable, Viable) : nullptr;
  for (unsigned K = 0; K < Cands.size(); ++K) {
    Candidate &C = Cands[K];
    if (!C.Failure.empty())
      continue;
    BasicBlock *Hit = BasicBlock::Create(Ctx, "target." + C.Target->getName(), D.Reverse);
    if (Sw)
      Sw->addCase(RB.getInt32(K), Hit);
    else
      RB.CreateBr(Hit);
    IRBuilder<> HB(Hit);
    Value *R = nullptr;
    if (C.Inactive) {
      R = ORT->isVoidTy() ? nullptr : Constant::getNullValue(ORT);
    } else {
      SmallVector<Value *, 16> Args = RArgs;
      Args.push_back(TapeR);
      R = HB.CreateCall(C.Pair.Reverse, Args);
    }
    if (RPhi)
      RPhi->addIncoming(R, Hit);
    HB.CreateBr(RMerge);
  }
  return D;
}

} // namespace synthase

namespace synthase {

bool lowerVirtualReverse(Module &M) {
  bool Changed = false;
  for (Function &F : make_early_inc_range(M)) {
    if (!F.isDeclaration() || !F.getName().contains("__enzyme_virtualreverse"))
      continue;
    for (User *U : make_early_inc_range(F.users())) {
      auto *CB = dyn_cast<CallBase>(U);
      if (!CB || CB->getCalledOperand() != &F || CB->arg_size() != 1 || !CB->getType()->isPointerTy())
        continue;
      // The shadow of a function pointer or vtable pointer is never read (dispatch goes by the
      // primal pointer), so the "shadow record" Enzyme builds here is the pointer itself.
      CB->replaceAllUsesWith(CB->getArgOperand(0));
      if (auto *II = dyn_cast<InvokeInst>(CB))
        BranchInst::Create(II->getNormalDest(), II->getIterator());
      CB->eraseFromParent();
      Changed = true;
    }
    if (F.use_empty())
      F.eraseFromParent();
  }
  return Changed;
}

} // namespace synthase
