// Lowering of AD call sites: each `__enzyme_autodiff*` / `__enzyme_fwddiff*` call becomes a call
// of the generated derivative, its result repacked into whatever type the user declared.
#include "Analysis/IterationCounts.h"
#include "CallSite/DiffCall.h"
#include "Analysis/UserAnnotations.h"
#include "Engine/Engine.h"
#include "Engine/FunctionShadows.h"
#include "Passes/CallChecks.h"
#include "Passes/GlobalShadowApi.h"
#include "Passes/Lowering.h"
#include "Reverse/RelocationLog.h"
#include "Reverse/Tape.h"
#include "Rules/Allocators.h"
#include "Passes/FunctionArguments.h"
#include "Rules/BLAS.h"
#include "Rules/MPI.h"
#include "Rules/NodeLinks.h"
#include "Passes/Inlining.h"
#include "Passes/LinkTimeBodies.h"
#include "Passes/NestingOrder.h"
#include "Passes/SplitMode.h"
#include "Passes/SugarInlining.h"
#include "Passes/UnreadVarArgs.h"
#include "Support/Diagnostics.h"
#include "Support/RustNames.h"
#include "synthase/Synthase.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Local.h"

using namespace llvm;

namespace synthase {

/// The entry point a call reaches: directly, or (at -O0) through a local function-pointer
/// variable that is only ever assigned the entry point.
static Function *entryPointOf(CallBase *CB) {
  Value *Callee = throughSpilledLocal(CB->getCalledOperand());
  auto *F = dyn_cast_or_null<Function>(Callee);
  return F && F->isDeclaration() && entryPointMode(F->getName()) ? F : nullptr;
}

std::vector<CallBase *> collectDiffCalls(Module &M) {
  std::vector<CallBase *> Calls;
  for (Function &F : M) {
    if (!F.isDeclaration() || !entryPointMode(F.getName()))
      continue;
    for (User *U : F.users()) {
      if (auto *CB = dyn_cast<CallBase>(U); CB && CB->getCalledOperand()->stripPointerCasts() == &F)
        Calls.push_back(CB);
      // `double (*ad)(void *, ...) = __enzyme_autodiff; ad(f, x)` as clang emits it at -O0.
      if (auto *SI = dyn_cast<StoreInst>(U); SI && SI->getValueOperand()->stripPointerCasts() == &F)
        if (auto *AI = dyn_cast<AllocaInst>(SI->getPointerOperand()->stripPointerCasts()))
          for (User *AU : AI->users())
            if (auto *LI = dyn_cast<LoadInst>(AU))
              for (User *LU : LI->users())
                if (auto *CB = dyn_cast<CallBase>(LU); CB && CB->getCalledOperand() == LI && entryPointOf(CB) == &F)
                  Calls.push_back(CB);
    }
  }
  return Calls;
}

/// Function-pointer variables that held an entry point and are no longer read: drop them, so
/// the entry point has no use left and the program links.
static void removeDeadEntryPointSlots(Module &M) {
  for (Function &F : M) {
    if (!F.isDeclaration() || !entryPointMode(F.getName()))
      continue;
    SmallVector<StoreInst *, 4> Dead;
    for (User *U : F.users())
      if (auto *SI = dyn_cast<StoreInst>(U))
        if (auto *AI = dyn_cast<AllocaInst>(SI->getPointerOperand()->stripPointerCasts())) {
          SmallVector<LoadInst *, 4> DeadLoads;
          for (User *AU : AI->users())
            if (auto *LI = dyn_cast<LoadInst>(AU); LI && LI->use_empty())
              DeadLoads.push_back(LI);
          for (LoadInst *LI : DeadLoads)
            LI->eraseFromParent();
          if (all_of(AI->users(), [](User *AU) { return isa<StoreInst>(AU); }))
            Dead.push_back(SI);
        }
    for (StoreInst *SI : Dead)
      SI->eraseFromParent();
  }
}

/// Any use of an entry point left at the end is one the engine could not follow (a function
/// pointer passed around, stored in memory...): say so instead of failing at link time.
static void reportUnloweredEntryPoints(Module &M) {
  for (Function &F : M) {
    if (!F.isDeclaration() || !entryPointMode(F.getName()) || F.use_empty())
      continue;
    User *U = *F.user_begin();
    auto *I = dyn_cast<Instruction>(U);
    reportError(I ? I->getFunction() : nullptr, I,
                "'" + F.getName() + "' is used other than by a direct call, so it cannot be "
                "differentiated here",
                "call __enzyme_autodiff / __enzyme_fwddiff directly (or through a local "
                "function-pointer variable assigned once)");
    if (!I)
      reportModuleError(M, "'" + F.getName() + "' is used other than by a direct call");
  }
}

/// Writes the derivative results into the type the call site declared (double, a struct of
/// adjoints, a C ABI-coerced struct such as <2 x float>, or an sret buffer), going through memory
/// when the shapes differ: the user's struct has the natural layout of the values in order.
void deliverResult(DiffCall &DC, ArrayRef<Value *> Parts, IRBuilder<> &B) {
  CallBase *CB = DC.Call;
  Type *CT = CB->getType();
  const DataLayout &DL = CB->getModule()->getDataLayout();
  if (Parts.empty()) {
    if (!CT->isVoidTy())
      CB->replaceAllUsesWith(Constant::getNullValue(CT));
    return;
  }
  if (!DC.SRet && Parts.size() == 1) {
    Value *V = Parts[0];
    if (CT->isVoidTy())
      return;
    if (V->getType() == CT) {
      CB->replaceAllUsesWith(V);
      return;
    }
    if (V->getType()->isFloatingPointTy() && CT->isFloatingPointTy()) {
      CB->replaceAllUsesWith(B.CreateFPCast(V, CT));
      return;
    }
  }
  SmallVector<Type *, 8> Tys;
  for (Value *V : Parts)
    Tys.push_back(V->getType());
  auto *ST = StructType::get(CB->getContext(), Tys);
  Value *Buf = DC.SRet;
  if (!Buf) {
    IRBuilder<> EB(&*CB->getFunction()->getEntryBlock().getFirstInsertionPt());
    uint64_t Need = std::max(DL.getTypeAllocSize(ST).getFixedValue(),
                             CT->isVoidTy() ? 0 : DL.getTypeAllocSize(CT).getFixedValue());
    auto *AI = EB.CreateAlloca(ArrayType::get(EB.getInt8Ty(), Need), nullptr, "synthase.result");
    AI->setAlignment(Align(16));
    Buf = AI;
  }
  for (unsigned i = 0; i < Parts.size(); ++i)
    B.CreateStore(Parts[i], B.CreateStructGEP(ST, Buf, i));
  if (!CT->isVoidTy() && !DC.SRet)
    CB->replaceAllUsesWith(B.CreateLoad(CT, Buf));
  else if (!CT->isVoidTy())
    CB->replaceAllUsesWith(PoisonValue::get(CT));
}

/// Shadows the user cannot see start fresh at each call; the user's (queried, named with
/// enzyme_shadow, or a context's) are theirs to reset (Passes/GlobalShadowApi.cpp).
static void zeroShadowGlobals(Engine &E, IRBuilder<> &B) {
  for (GlobalVariable *G : E.shadowGlobals())
    E.resetShadow(B, G);
  E.syncUserHeapShadows(B);
}

/// Calls of generated functions that may unwind (a panic or an exception in the primal code),
/// made in place of an entry point that was invoked: they take over its unwind edge.
static SmallVector<CallInst *, 4> MayUnwind;

static void noteMayUnwind(CallInst *CI) {
  if (Function *F = CI->getCalledFunction(); F && !F->doesNotThrow())
    MayUnwind.push_back(CI);
}

/// An invoked entry point (Rust's `extern "C-unwind"` placeholder with Drop guards around it, C++
/// with exceptions) keeps its landing pad: each generated call that may unwind becomes an invoke
/// to the same unwind destination, so a panic in a derivative runs the caller's cleanups and can
/// be caught like one in the primal.
static void keepUnwindEdge(CallBase *Entry) {
  auto *II = dyn_cast<InvokeInst>(Entry);
  if (!II) {
    MayUnwind.clear();
    return;
  }
  // The generated calls need not share the entry's block: giving the tape buffer back
  // (TapeArena.cpp) splits it, so a call's block says nothing about which entry it replaced.
  for (CallInst *CI : MayUnwind) {
    BasicBlock *UD = II->getUnwindDest();
    BasicBlock *From = CI->getParent();
    changeToInvokeAndSplitBasicBlock(CI, UD);
    // The incoming values were defined before the entry and so before the generated calls.
    for (PHINode &P : UD->phis())
      P.addIncoming(P.getIncomingValueForBlock(II->getParent()), From);
  }
  MayUnwind.clear();
}

static bool lowerForward(Engine &E, DiffCall &DC) {
  Type *RT = DC.Fn->getReturnType();
  bool RetActive = carriesDerivative(RT);
  Signature S{DC.Fn, DiffMode::Forward, {}, DC.Width, DC.ReturnPrimal && !RT->isVoidTy(), RetActive};
  for (ArgSpec &A : DC.Args)
    S.Acts.push_back(A.Kind);
  Function *TF = E.tangentFunction(S);
  if (!TF)
    return false;
  IRBuilder<> B(DC.Call);
  B.SetCurrentDebugLocation(DC.Call->getDebugLoc());
  zeroShadowGlobals(E, B);
  SmallVector<Value *, 16> Args = DC.primalsAndShadows();
  CallInst *R = B.CreateCall(TF, Args);
  noteMayUnwind(R);
  SmallVector<Value *, 8> Parts;
  if (!TF->getReturnType()->isVoidTy()) {
    unsigned N = (S.RetPrimal ? 1 : 0) + (RetActive ? DC.Width : 0);
    if (N == 1)
      Parts.push_back(R);
    else
      for (unsigned i = 0; i < N; ++i)
        Parts.push_back(B.CreateExtractValue(R, i));
    if (!DC.ReturnDerivative) // enzyme_const_return: the primal only
      Parts.resize(S.RetPrimal ? 1 : 0);
  }
  deliverResult(DC, Parts, B);
  return true;
}

/// The default seed of an active return: 1 in every floating-point field.
static Constant *unitSeed(Type *T) {
  if (T->isFPOrFPVectorTy())
    return ConstantFP::get(T, 1.0);
  if (auto *ST = dyn_cast<StructType>(T)) {
    SmallVector<Constant *, 4> F;
    for (Type *E : ST->elements())
      F.push_back(carriesDerivative(E) ? unitSeed(E) : Constant::getNullValue(E));
    return ConstantStruct::get(ST, F);
  }
  if (auto *AT = dyn_cast<ArrayType>(T))
    return ConstantArray::get(AT, SmallVector<Constant *, 4>(AT->getNumElements(), unitSeed(AT->getElementType())));
  return Constant::getNullValue(T);
}

static bool lowerReverse(Engine &E, DiffCall &DC) {
  Type *RT = DC.Fn->getReturnType();
  bool RetActive = carriesDerivative(RT);
  if (DC.Width > 1 && E.customs().reverseRule(DC.Fn)) {
    reportError(DC.Call->getFunction(), DC.Call,
                "__enzyme_autodiff: vector reverse mode (enzyme_width " + Twine(DC.Width) +
                    ") of '" + DC.Fn->getName() + "', which has a registered gradient, is not supported",
                "call the reverse mode once per lane, or differentiate the body instead of registering it");
    return false;
  }
  Signature S{DC.Fn, DiffMode::Reverse, {}, DC.Width, DC.ReturnPrimal && !RT->isVoidTy(), RetActive, true};
  for (ArgSpec &A : DC.Args)
    S.Acts.push_back(A.Kind);
  GradientPair GP = E.gradientPair(S);
  if (!GP.Augmented || !GP.Reverse)
    return false;
  IRBuilder<> B(DC.Call);
  B.SetCurrentDebugLocation(DC.Call->getDebugLoc());
  zeroShadowGlobals(E, B);
  StructType *TT = E.tapeType();
  AllocaInst *Tape, *Inline;
  {
    IRBuilder<> EB(&*DC.Call->getFunction()->getEntryBlock().getFirstInsertionPt());
    Tape = EB.CreateAlloca(TT, nullptr, "synthase.tape");
    Inline = EB.CreateAlloca(ArrayType::get(EB.getInt8Ty(), InlineTapeBytes), nullptr, "synthase.tape.inline");
    Inline->setAlignment(Align(16));
  }
  // A tape that may outgrow the frame buffer starts from the thread's cached buffer
  // (Reverse/TapeArena.cpp).
  std::optional<uint64_t> Bound = E.tapeBound(GP.Augmented);
  bool Reuse = sweepsUseTape(E, GP) && !(Bound && *Bound <= InlineTapeBytes);
  TapeLease L;
  if (Reuse)
    L = emitTakeTapeBuffer(E.module(), B, Inline);
  B.CreateStore(Reuse ? L.Base : Inline, B.CreateStructGEP(TT, Tape, 0));
  B.CreateStore(B.getInt64(0), B.CreateStructGEP(TT, Tape, 1));
  B.CreateStore(Reuse ? L.Cap : B.getInt64(InlineTapeBytes), B.CreateStructGEP(TT, Tape, 2));
  SmallVector<Value *, 16> Args = DC.primalsAndShadows();
  SmallVector<Value *, 17> AugArgs(Args.begin(), Args.end());
  AugArgs.push_back(Tape);
  CallInst *Primal = B.CreateCall(GP.Augmented, AugArgs);
  emitTapeStats(E.module(), B, Tape);
  SmallVector<Value *, 17> RevArgs(Args.begin(), Args.end());
  if (RetActive && DC.Width == 1)
    RevArgs.push_back(DC.DRet ? DC.DRet : unitSeed(RT));
  else if (RetActive) // vector mode: one seed per lane, 1 in every lane unless passed (as Enzyme)
    for (unsigned L = 0; L < DC.Width; ++L)
      RevArgs.push_back(!DC.DRetLanes.empty() ? DC.DRetLanes[L] : DC.DRet ? DC.DRet : unitSeed(RT));
  RevArgs.push_back(Tape);
  CallInst *Adj = B.CreateCall(GP.Reverse, RevArgs);
  if (relocationLogUsed(E.module())) {
    // The caller's containers passed with shadows, whose data the call may replace.
    SmallVector<std::pair<Value *, ContainerPath>, 8> Fields;
    Function *Clone = E.primalOf(DC.Fn);
    for (unsigned K = 0; K < DC.Args.size() && K < Clone->arg_size(); ++K) {
      const ArgSpec &A = DC.Args[K];
      if ((A.Kind != ArgKind::Dup && A.Kind != ArgKind::DupNoNeed) || A.StrideBytes)
        continue;
      for (const ContainerPath &Path : containerFields(E.module().getDataLayout(), Clone->getArg(K)))
        for (Value *Sh : A.Shadows)
          Fields.push_back({Sh, Path});
    }
    emitRelocationFrame(Primal, Adj, Fields);
  }
  // A leased tape buffer goes back to the arena on unwinding too (TapeArena.cpp).
  CallBase *Sweeps[2] = {Primal, Adj};
  if (Reuse && emitGiveBackOnUnwind(E, DC.Call, Sweeps, Tape, L)) {
    B.SetInsertPoint(DC.Call);
  } else {
    noteMayUnwind(Primal);
    noteMayUnwind(Adj);
  }
  if (Reuse) {
    emitGiveBackTapeBuffer(E, DC.Call, Tape, L);
    B.SetInsertPoint(DC.Call);
  }
  SmallVector<Value *, 8> Parts;
  if (S.RetPrimal)
    Parts.push_back(Sweeps[0]);
  Type *AT = Sweeps[1]->getType();
  if (auto *AST = dyn_cast<StructType>(AT)) {
    for (unsigned i = 0; i < AST->getNumElements(); ++i)
      Parts.push_back(B.CreateExtractValue(Sweeps[1], i));
  } else if (!AT->isVoidTy()) {
    Parts.push_back(Sweeps[1]);
  }
  deliverResult(DC, Parts, B);
  return true;
}

/// enzyme_runtime_activity: a duplicated pointer passed with itself as its shadow counts as
/// constant, decided at run time as Enzyme does. The call site compares each such pair and
/// branches to a derivative generated for that combination of constant arguments. Up to three
/// pointers are dispatched this way (eight derivatives); beyond that, with vector width, or on
/// an invoke, every pointer stays duplicated as marked.
static bool lowerWithRuntimeActivity(Engine &E, DiffCall &DC, bool (*Lower)(Engine &, DiffCall &)) {
  auto *CI = dyn_cast<CallInst>(DC.Call);
  SmallVector<unsigned, 3> Picked;
  for (unsigned i = 0; i < DC.Args.size(); ++i) {
    const ArgSpec &A = DC.Args[i];
    if ((A.Kind == ArgKind::Dup || A.Kind == ArgKind::DupNoNeed) && A.Primal->getType()->isPointerTy() &&
        !A.StrideBytes && A.Shadows.size() == 1)
      Picked.push_back(i);
  }
  if (!CI || Picked.empty() || Picked.size() > 3 || DC.Width != 1)
    return Lower(E, DC);
  BasicBlock *Head = CI->getParent();
  BasicBlock *Join = Head->splitBasicBlock(CI, "runtime.activity.join");
  Head->getTerminator()->eraseFromParent();
  IRBuilder<> B(Head);
  B.SetCurrentDebugLocation(CI->getDebugLoc());
  Value *Mask = B.getInt32(0);
  for (unsigned K = 0; K < Picked.size(); ++K) {
    const ArgSpec &A = DC.Args[Picked[K]];
    Value *Same = B.CreateICmpEQ(A.Primal, A.Shadows[0]);
    Mask = B.CreateOr(Mask, B.CreateShl(B.CreateZExt(Same, B.getInt32Ty()), K));
  }
  unsigned NV = 1u << Picked.size();
  SmallVector<BasicBlock *, 8> Blocks;
  for (unsigned V = 0; V < NV; ++V)
    Blocks.push_back(BasicBlock::Create(CI->getContext(), "runtime.activity", Head->getParent(), Join));
  SwitchInst *SW = B.CreateSwitch(Mask, Blocks[0], NV - 1);
  PHINode *Result = nullptr;
  if (!CI->getType()->isVoidTy())
    Result = PHINode::Create(CI->getType(), NV, "runtime.activity.result", Join->begin());
  bool OK = true;
  for (unsigned V = 0; V < NV; ++V) {
    if (V)
      SW->addCase(B.getInt32(V), Blocks[V]);
    auto *Clone = cast<CallInst>(CI->clone());
    Clone->insertInto(Blocks[V], Blocks[V]->end());
    BranchInst::Create(Join, Blocks[V]);
    if (Result)
      Result->addIncoming(Clone, Blocks[V]);
    DiffCall Variant = DC;
    Variant.Call = Clone;
    for (unsigned K = 0; K < Picked.size(); ++K)
      if (V & (1u << K)) {
        Variant.Args[Picked[K]].Kind = ArgKind::Const;
        Variant.Args[Picked[K]].Shadows.clear();
      }
    OK &= Lower(E, Variant);
    if (!Clone->use_empty())
      Clone->replaceAllUsesWith(PoisonValue::get(Clone->getType()));
    Clone->eraseFromParent();
  }
  if (Result)
    CI->replaceAllUsesWith(Result);
  return OK;
}

static void eraseCallAndMarkers(CallBase *CB) {
  SetVector<Value *> Ops(CB->arg_begin(), CB->arg_end()); // one value may be several operands
  if (!CB->getType()->isVoidTy() && !CB->use_empty())
    CB->replaceAllUsesWith(PoisonValue::get(CB->getType()));
  // An invoked entry point: the generated calls that may unwind took over its unwind edge
  // (keepUnwindEdge); the invoke itself becomes a branch to its normal destination.
  if (auto *II = dyn_cast<InvokeInst>(CB)) {
    II->getUnwindDest()->removePredecessor(II->getParent());
    BranchInst::Create(II->getNormalDest(), II->getIterator());
  }
  CB->eraseFromParent();
  for (Value *V : Ops)
    if (auto *I = dyn_cast<Instruction>(V))
      if (I->use_empty() && !I->mayHaveSideEffects())
        I->eraseFromParent();
}

/// Folds comparisons of a marker's address with null. rustc's debug builds check the address of
/// every extern static they read (`icmp eq i64 ptrtoint (ptr @enzyme_dup to i64), 0`): the check
/// outlives the marker's load and would keep the undefined symbol alive.
static void foldMarkerNullChecks(Value *V) {
  SmallVector<User *, 8> Users(V->users());
  for (User *U : Users) {
    if (auto *CE = dyn_cast<ConstantExpr>(U)) {
      if (CE->getOpcode() == Instruction::PtrToInt || CE->getOpcode() == Instruction::AddrSpaceCast)
        foldMarkerNullChecks(CE);
      continue;
    }
    if (isa<PtrToIntInst>(U) || isa<AddrSpaceCastInst>(U)) {
      foldMarkerNullChecks(U);
      continue;
    }
    auto *Cmp = dyn_cast<ICmpInst>(U);
    if (!Cmp || !Cmp->isEquality())
      continue;
    auto *Other = dyn_cast<Constant>(Cmp->getOperand(Cmp->getOperand(0) == V ? 1 : 0));
    if (!Other || !Other->isNullValue())
      continue;
    Cmp->replaceAllUsesWith(ConstantInt::getBool(Cmp->getType(), Cmp->getPredicate() == ICmpInst::ICMP_NE));
    Cmp->eraseFromParent();
  }
}

/// Markers are only ever declared by users (`extern int enzyme_dup;`): drop every use left, so the
/// program links even at -O0, and drop the declarations themselves. A use that is still there
/// (the marker's address stored or compared in a way not folded above) gets an internal zero
/// definition to refer to, unless a call site is left for a later stage (\p Deferred), which
/// must still find the marker loads.
static void removeMarkerGlobals(Module &M, bool Deferred) {
  SmallVector<GlobalVariable *, 8> Dead;
  for (GlobalVariable &G : M.globals()) {
    if (!G.getName().starts_with("enzyme_"))
      continue;
    foldMarkerNullChecks(&G);
    SmallVector<User *, 8> Users(G.users());
    for (User *U : Users)
      if (auto *LI = dyn_cast<LoadInst>(U))
        if (LI->use_empty())
          LI->eraseFromParent();
    G.removeDeadConstantUsers();
    if (G.use_empty() && (G.isDeclaration() || G.hasLocalLinkage()))
      Dead.push_back(&G);
    else if (!Deferred && G.isDeclaration() && G.getValueType()->isSized()) {
      G.setInitializer(Constant::getNullValue(G.getValueType()));
      G.setLinkage(GlobalValue::InternalLinkage);
    }
  }
  for (GlobalVariable *G : Dead)
    G->eraseFromParent();
}

bool lowerDiffCalls(Module &M, const Options &O, Engine &E) {
  std::vector<CallBase *> Calls = collectDiffCalls(M);
  for (CallBase *CB : collectSplitCalls(M))
    Calls.push_back(CB);
  if (Calls.empty())
    return false;
  auto TargetOf = [](CallBase *CB) {
    return differentiatedFunction(CB->getArgOperand(
        CB->arg_size() > 0 && CB->paramHasAttr(0, Attribute::StructRet) ? 1 : 0));
  };
  SmallPtrSet<CallBase *, 4> Cyclic;
  DenseMap<CallBase *, unsigned> Order;
  Calls = orderForNesting(Calls, TargetOf, Cyclic, Order); // inner derivatives first
  bool Changed = false, Deferred = false;
  for (CallBase *CB : Calls) {
    Function *Target = TargetOf(CB);
    Function *Entry = entryPointOf(CB);
    auto EntryMode = Entry ? entryPointMode(Entry->getName()) : std::nullopt;
    RustDiagnosticsScope Rust(CB, EntryMode && *EntryMode == DiffMode::Forward, Target);
    // A ThinLTO backend sees one module at a time: refuse even when the body happens to be here,
    // so a build never depends on how the program was split into modules.
    if (O.When == Stage::Compile && needsBodiesFromOtherModules(Target)) {
      Deferred = true;
      continue; // full LTO may still bring the bodies (the function's, or a callee's)
    }
    if (O.When == Stage::ThinLTO || (Target && Target->isDeclaration())) {
      const char *Why =
          O.When == Stage::ThinLTO
              ? "ThinLTO splits the program into modules, so the whole function is not visible here"
              : "it has no body in this module";
      reportError(CB->getFunction(), CB,
                  "cannot differentiate '" + (Target ? displayName(Target->getName()) : std::string("<unknown>")) + "': " + Why,
                  "use full LTO: clang -flto=full (Rust: -C lto=fat -C linker-plugin-lto) with the "
                  "plugin loaded at link time (-Wl,--load-pass-plugin=Synthase.so)");
      eraseCallAndMarkers(CB);
      Changed = true;
      continue;
    }
    if (Cyclic.count(CB)) {
      reportError(CB->getFunction(), CB,
                  "'" + displayName(Target->getName()) + "' is differentiated by a call that '" +
                      displayName(Target->getName()) + "' itself runs (directly or through its callees): "
                      "its derivative would contain itself",
                  "differentiate a function that does not contain this call, e.g. move the inner "
                  "derivative into a separate function and differentiate that");
      eraseCallAndMarkers(CB);
      Changed = true;
      continue;
    }
    if (isSplitCall(CB)) {
      lowerSplitCall(E, CB);
      eraseCallAndMarkers(CB);
      Changed = true;
      continue;
    }
    auto Mode = entryPointMode(entryPointOf(CB)->getName());
    std::optional<DiffCall> DC = parseDiffCall(CB, *Mode);
    bool OK = false;
    if (DC && checkResultShape(*DC) && checkShadowTypes(*DC, E)) {
      E.selectShadowSet(DC->ShadowSet, std::max(1u, Order.lookup(CB)));
      auto *Lower = *Mode == DiffMode::Forward ? lowerForward : lowerReverse;
      OK = DC->RuntimeActivity ? lowerWithRuntimeActivity(E, *DC, Lower) : Lower(E, *DC);
      E.selectShadowSet(0);
    }
    if (OK)
      keepUnwindEdge(CB);
    MayUnwind.clear();
    eraseCallAndMarkers(CB);
    Changed = true;
  }
  removeMarkerGlobals(M, Deferred);
  removeDeadEntryPointSlots(M);
  return Changed;
}

/// Enzyme's type hints (`__enzyme_float(ptr, size)`, ...) only help its type analysis; Synthase
/// reads types from the IR, so the hints are dropped before anything is differentiated. So is
/// `__enzyme_ptr_size_hint(ptr, bytes, ...)`, the extent of memory behind a pointer: Synthase
/// shadows memory through the caller's shadow pointers and allocations, never by size.
static bool dropTypeHints(Module &M) {
  bool Changed = false;
  for (Function &F : M) {
    StringRef N = F.getName();
    if (!F.isDeclaration() || !(N == "__enzyme_float" || N == "__enzyme_double" ||
                                N == "__enzyme_integer" || N == "__enzyme_pointer" ||
                                N == "__enzyme_ptr_size_hint"))
      continue;
    SmallVector<CallBase *, 4> Calls;
    for (User *U : F.users())
      if (auto *CB = dyn_cast<CallBase>(U); CB && CB->getType()->isVoidTy())
        Calls.push_back(CB);
    for (CallBase *CB : Calls) {
      if (auto *II = dyn_cast<InvokeInst>(CB))
        BranchInst::Create(II->getNormalDest(), II->getIterator());
      CB->eraseFromParent();
      Changed = true;
    }
  }
  return Changed;
}

/// A call whose function, or a callee of it, has no body here: compile-time lowering leaves it
/// for link time.
static bool hasDeferredDiffCall(Module &M) {
  for (CallBase *CB : collectDiffCalls(M)) {
    Function *F = differentiatedFunction(CB->getArgOperand(
        CB->arg_size() > 0 && CB->paramHasAttr(0, Attribute::StructRet) ? 1 : 0));
    if (needsBodiesFromOtherModules(F))
      return true;
  }
  return false;
}

/// Other parts of Enzyme's API are not implemented: say so at compile time, not at link time.
/// (Custom-derivative registrations are read by Rules/CustomDerivatives.cpp.)
static void reportUnsupportedEnzymeApi(Module &M, const Options &O) {
  if (O.When == Stage::Compile)
    return;
  for (Function &F : M) {
    StringRef N = F.getName();
    if (!F.isDeclaration() || F.use_empty() || !N.contains("__enzyme_") || entryPointMode(N) || isSplitEntryName(N))
      continue;
    auto *I = dyn_cast<Instruction>(*F.user_begin());
    reportError(I ? I->getFunction() : nullptr, I,
                "Enzyme API '" + N + "' is not supported by Synthase",
                "supported entry points: __enzyme_autodiff* (reverse), __enzyme_fwddiff* "
                "(forward, with enzyme_width for vector mode), __enzyme_augmentfwd / __enzyme_reverse / "
                "__enzyme_augmentsize (split reverse mode)");
    if (!I)
      reportModuleError(M, "Enzyme API '" + N + "' is not supported by Synthase");
  }
}

bool lowerModule(Module &M, const Options &O) {
  if (O.PrintBefore)
    M.print(errs() << "; *** Synthase: module before AD ***\n", nullptr);
  Engine E(M);
  registerUserAllocators(M);
  registerMPIDerivatives(M); // before the registrations are read: they are among them
  registerBLASDerivatives(M);
  markNodeLinkHelpers(M);
  E.customs().read(M, O.When);
  applyUserAnnotations(M);
  markInactiveLibraryDefinitions(M);
  bool Changed = dropTypeHints(M);
  Changed |= lowerVirtualReverse(M);
  Changed |= defineTapeRelease(M);
  Changed |= expandDeclarativeFrontDoor(M);
  Changed |= inlineEntryPointWrappers(M);
  Changed |= specializeFunctionArguments(M);
  if (!collectDiffCalls(M).empty())
    Changed |= dropUnreadVarArgs(M);
  Changed |= lowerBatchCalls(M); // before AD calls: a batched function may itself call __enzyme_fwddiff
  // Contexts and shadow queries are resolved once for the whole program: with a derivative left
  // for link time, they wait for it too.
  bool ShadowApi = O.When != Stage::Compile || !hasDeferredDiffCall(M);
  if (ShadowApi) {
    Changed |= lowerContexts(M);
    Changed |= lowerShadowQueries(M, E);
  }
  if (O.PrintPasses)
    errs() << "synthase: lowering AD call sites\n";
  bool Lowered = lowerDiffCalls(M, O, E);
  Changed |= Lowered;
  if (ShadowApi)
    Changed |= lowerZeroShadows(M, E);
  if (Changed) {
    if (O.PrintPasses)
      errs() << "synthase: inlining post-pass\n";
    Options Post = O;
    Post.PostOpt &= O.When != Stage::FinalCheck || Lowered; // a compile's own code is optimized once
    applyInliningPostPass(M, E, Post);
    E.cleanup();
  }
  removeDeadEntryPointSlots(M);
  removeUnusedEntryPoints(M);
  if (O.When != Stage::Compile)
    reportUnloweredEntryPoints(M);
  if (ShadowApi)
    Changed |= lowerIterationCounts(M);
  reportUnsupportedEnzymeApi(M, O);
  E.customs().finish(M, O.When);
  if (Changed) {
    std::string Msg;
    raw_string_ostream OS(Msg);
    if (verifyModule(M, &OS))
      reportModuleError(M, "internal error: the module does not verify after AD; please report this",
                        StringRef(Msg).take_front(600));
  }
  if (O.PrintAfter)
    M.print(errs() << "; *** Synthase: module after AD ***\n", nullptr);
  return Changed;
}

bool parseOptions(const std::string &Text, Options &O, std::string &Error) {
  StringRef Rest = Text;
  while (!Rest.empty()) {
    auto [Tok, Tail] = Rest.split(';');
    Rest = Tail;
    for (StringRef T : llvm::split(Tok, ',')) {
      T = T.trim();
      if (T.empty())
        continue;
      if (T == "no-postopt") O.PostOpt = false;
      else if (T == "postopt") O.PostOpt = true;
      else if (T == "print-before") O.PrintBefore = true;
      else if (T == "print-after") O.PrintAfter = true;
      else if (T == "print-passes") O.PrintPasses = true;
      else if (T.size() == 2 && T[0] == 'O' && T[1] >= '0' && T[1] <= '3') O.OptLevel = T[1] - '0';
      else {
        Error = ("unknown synthase option '" + T + "' (known: no-postopt, print-before, "
                 "print-after, print-passes, O0..O3)").str();
        return false;
      }
    }
  }
  return true;
}

} // namespace synthase
