// Specialization of helpers that receive the differentiated function as a parameter (see the
// header). Runs before any AD call is parsed, so every later stage sees a constant function.
#include "Passes/FunctionArguments.h"
#include "CallSite/DiffCall.h"
#include "Passes/Lowering.h"
#include "Passes/SplitMode.h"
#include "Support/Diagnostics.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Transforms/Utils/Cloning.h"

using namespace llvm;

namespace synthase {

namespace {

/// An operand as the helper sees it: through casts and (at -O0) a local assigned once.
Value *operandSource(Value *V) {
  V = V->stripPointerCasts();
  if (isa<LoadInst>(V))
    V = throughSpilledLocal(V);
  return V;
}

bool isBatchName(StringRef N) {
  return N.starts_with("__enzyme_batch") || (N.starts_with("_Z") && N.contains("__enzyme_batch"));
}

/// Calls of every AD entry point (combined, split, batch) with the position of their function.
SmallVector<std::pair<CallBase *, unsigned>, 16> adCalls(Module &M) {
  SmallVector<std::pair<CallBase *, unsigned>, 16> Out;
  auto Add = [&](CallBase *CB) {
    unsigned First = CB->arg_size() > 0 && CB->paramHasAttr(0, Attribute::StructRet) ? 1 : 0;
    if (CB->arg_size() > First)
      Out.push_back({CB, First});
  };
  for (CallBase *CB : collectDiffCalls(M))
    Add(CB);
  for (CallBase *CB : collectSplitCalls(M))
    Add(CB);
  for (Function &F : M)
    if (F.isDeclaration() && isBatchName(F.getName()))
      for (User *U : F.users())
        if (auto *CB = dyn_cast<CallBase>(U); CB && CB->getCalledOperand()->stripPointerCasts() == &F)
          Add(CB);
  return Out;
}

/// Helpers and the parameter positions that must be constant functions: those an AD call reads,
/// then, transitively, the caller parameters that feed them.
MapVector<Function *, SmallSetVector<unsigned, 2>> neededParameters(Module &M) {
  MapVector<Function *, SmallSetVector<unsigned, 2>> Need;
  SmallVector<std::pair<Function *, unsigned>, 8> Work;
  auto Note = [&](Value *V) {
    if (auto *A = dyn_cast_or_null<Argument>(V); A && !A->getParent()->isDeclaration())
      if (Need[A->getParent()].insert(A->getArgNo()))
        Work.push_back({A->getParent(), A->getArgNo()});
  };
  for (auto [CB, Pos] : adCalls(M))
    Note(operandSource(CB->getArgOperand(Pos)));
  while (!Work.empty()) {
    auto [H, Idx] = Work.pop_back_val();
    for (User *U : H->users())
      if (auto *CB = dyn_cast<CallBase>(U); CB && CB->getCalledOperand() == H && Idx < CB->arg_size())
        Note(operandSource(CB->getArgOperand(Idx)));
  }
  return Need;
}

struct Specializer {
  explicit Specializer(Module &M) : M(M) {}
  Module &M;
  MapVector<Function *, SmallSetVector<unsigned, 2>> Need;
  /// (helper, position, function) -> clone; Origin maps a clone back to its helper and position.
  DenseMap<std::tuple<Function *, unsigned, Function *>, Function *> Clones;
  MapVector<Function *, SmallVector<std::pair<Function *, Function *>, 4>> ByHelper;

  Function *cloneFor(Function *H, unsigned Idx, Function *G) {
    Function *&C = Clones[{H, Idx, G}];
    if (C)
      return C;
    ValueToValueMapTy VM;
    C = CloneFunction(H, VM);
    C->setName(H->getName() + ".synthase.for." + G->getName());
    C->setLinkage(GlobalValue::InternalLinkage);
    C->setVisibility(GlobalValue::DefaultVisibility);
    C->setComdat(nullptr);
    C->getArg(Idx)->replaceAllUsesWith(G);
    // The clone still reads its other function parameters: they need the same treatment.
    SmallSetVector<unsigned, 2> Rest = Need.lookup(H);
    Rest.remove(Idx);
    if (!Rest.empty())
      Need[C] = Rest;
    ByHelper[H].push_back({G, C});
    return C;
  }

  /// One pass over every known call site; true when one was redirected.
  bool round() {
    bool Changed = false;
    for (unsigned i = 0; i < Need.size(); ++i) {
      Function *H = Need.begin()[i].first;
      SmallSetVector<unsigned, 2> Idxs = Need.begin()[i].second;
      for (unsigned Idx : Idxs) {
        SmallVector<CallBase *, 8> Sites;
        for (User *U : H->users())
          if (auto *CB = dyn_cast<CallBase>(U); CB && CB->getCalledOperand() == H && Idx < CB->arg_size())
            Sites.push_back(CB);
        for (CallBase *CB : Sites)
          if (Function *G = differentiatedFunction(CB->getArgOperand(Idx)); G && G != H) {
            CB->setCalledFunction(cloneFor(H, Idx, G));
            Changed = true;
          }
      }
    }
    return Changed;
  }

  /// A helper other modules may call keeps its symbol: its body now chooses the clone by the
  /// pointer it was given (one parameter only; with several, it keeps its original body).
  void makeDispatcher(Function *H) {
    const SmallSetVector<unsigned, 2> &Idxs = Need.lookup(H);
    auto It = ByHelper.find(H);
    if (Idxs.size() != 1 || It == ByHelper.end() || H->hasLocalLinkage() || H->isVarArg())
      return;
    unsigned Idx = Idxs[0];
    H->deleteBody();
    LLVMContext &Ctx = M.getContext();
    BasicBlock *BB = BasicBlock::Create(Ctx, "entry", H);
    IRBuilder<> B(BB);
    SmallVector<Value *, 8> Args;
    for (Argument &A : H->args())
      Args.push_back(&A);
    for (auto [G, C] : It->second) {
      BasicBlock *Hit = BasicBlock::Create(Ctx, "is." + G->getName(), H);
      BasicBlock *Next = BasicBlock::Create(Ctx, "next", H);
      B.CreateCondBr(B.CreateICmpEQ(H->getArg(Idx), G), Hit, Next);
      IRBuilder<> HB(Hit);
      CallInst *Call = HB.CreateCall(C, Args);
      if (H->getReturnType()->isVoidTy())
        HB.CreateRetVoid();
      else
        HB.CreateRet(Call);
      B.SetInsertPoint(Next);
    }
    emitAbort(B, M,
              "'" + displayName(H->getName()) +
                  "' was called with a function that no call site in its module passes; its derivative "
                  "was generated only for those");
  }

  bool run() {
    Need = neededParameters(M);
    if (Need.empty())
      return false;
    bool Changed = false;
    // Each round pushes constants one helper deeper; nesting of helpers is shallow in practice.
    for (unsigned R = 0; R < 8 && round(); ++R)
      Changed = true;
    if (!Changed)
      return false;
    SmallVector<Function *, 8> Helpers;
    for (auto &KV : ByHelper)
      Helpers.push_back(KV.first);
    for (Function *H : Helpers)
      makeDispatcher(H);
    // Originals no one calls any more would still hold AD calls of unknown functions.
    for (bool Erased = true; Erased;) {
      Erased = false;
      for (Function *H : Helpers)
        if (H && H->hasLocalLinkage() && H->use_empty()) {
          H->eraseFromParent();
          for (Function *&Other : Helpers)
            if (Other == H)
              Other = nullptr;
          Erased = true;
        }
    }
    return true;
  }
};

} // namespace

bool specializeFunctionArguments(Module &M) {
  Specializer S(M);
  return S.run();
}

} // namespace synthase
