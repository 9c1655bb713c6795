#include "Passes/SugarInlining.h"
#include "CallSite/DiffCall.h"
#include "Support/AnalysisManagers.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/Scalar/InstSimplifyPass.h"
#include "llvm/Transforms/Scalar/SROA.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/Mem2Reg.h"

using namespace llvm;

namespace synthase {

// The plugin runs at the start of clang's pipeline, before the always-inliner. A call made
// inside a template helper then sees the helper's parameters, not the user's function and
// markers: the helpers must be inlined first, and their spilled parameters and tuples promoted.
// Only always-inline functions are inlined, which the always-inliner would inline anyway.

static bool isEntryCall(const Instruction &I) {
  auto *CB = dyn_cast<CallBase>(&I);
  Function *F = CB ? CB->getCalledFunction() : nullptr;
  // The global-shadow API too: a context made in a helper (enzyme::context) is one context per
  // call of the helper, and its shadow queries need the context as a constant.
  return F && F->isDeclaration() &&
         (entryPointMode(F->getName()) || F->getName() == "__enzyme_context" ||
          F->getName() == "__enzyme_shadow" || F->getName() == "__enzyme_zero_shadows");
}

static bool hasEntryCall(const Function &F) {
  for (const BasicBlock &BB : F)
    for (const Instruction &I : BB)
      if (isEntryCall(I))
        return true;
  return false;
}

static bool isWrapper(const Function &F) {
  return !F.isDeclaration() && F.hasFnAttribute(Attribute::AlwaysInline) && !F.isVarArg();
}

/// Inlines the always-inline callees of \p H until none is left (bounded: recursion through
/// always-inline functions is not followed forever).
static bool inlineAlwaysInlineCallees(Function &H) {
  bool Changed = false;
  for (unsigned Round = 0; Round < 64; ++Round) {
    SmallVector<CallBase *, 16> Calls;
    for (BasicBlock &BB : H)
      for (Instruction &I : BB)
        if (auto *CB = dyn_cast<CallBase>(&I))
          if (Function *C = CB->getCalledFunction(); C && C != &H && isWrapper(*C))
            Calls.push_back(CB);
    if (Calls.empty())
      break;
    bool Any = false;
    for (CallBase *CB : Calls) {
      InlineFunctionInfo IFI;
      Any |= InlineFunction(*CB, IFI).isSuccess();
    }
    if (!Any)
      break;
    Changed = true;
  }
  return Changed;
}

/// extractvalue of a field that an insertvalue chain (or a constant) set: the field itself.
/// InstSimplify only folds the field the last insertvalue wrote.
static void foldExtractsOfInserts(Function &H) {
  SmallVector<ExtractValueInst *, 16> Work;
  for (BasicBlock &BB : H)
    for (Instruction &I : BB)
      if (auto *EV = dyn_cast<ExtractValueInst>(&I))
        Work.push_back(EV);
  for (ExtractValueInst *EV : Work)
    if (Value *V = FindInsertedValue(EV->getAggregateOperand(), EV->getIndices())) {
      EV->replaceAllUsesWith(V);
      EV->eraseFromParent();
    }
}

bool inlineEntryPointWrappers(Module &M) {
  // The functions that make the calls in the end: callers of always-inline functions that reach
  // an entry point, found by walking up from the functions holding the calls.
  SetVector<Function *> Wrappers, Hosts;
  for (Function &F : M)
    if (isWrapper(F) && hasEntryCall(F))
      Wrappers.insert(&F);
  for (unsigned i = 0; i < Wrappers.size(); ++i)
    for (User *U : Wrappers[i]->users())
      if (auto *CB = dyn_cast<CallBase>(U); CB && CB->getCalledFunction() == Wrappers[i]) {
        Function *Caller = CB->getFunction();
        if (isWrapper(*Caller))
          Wrappers.insert(Caller);
        else
          Hosts.insert(Caller);
      }
  if (Hosts.empty())
    return false;

  AnalysisManagers AM;
  FunctionAnalysisManager &FAM = AM.FAM;
  bool Changed = false;
  for (Function *H : Hosts) {
    if (!inlineAlwaysInlineCallees(*H))
      continue;
    Changed = true;
    // Run directly, not through a pass manager, so that optnone (-O0) does not skip them; the
    // function keeps optnone, and only its locals become SSA values.
    FAM.invalidate(*H, PreservedAnalyses::none());
    SROAPass(SROAOptions::PreserveCFG).run(*H, FAM);
    FAM.invalidate(*H, PreservedAnalyses::none());
    PromotePass().run(*H, FAM);
    FAM.invalidate(*H, PreservedAnalyses::none());
    // Tuples returned in registers leave insertvalue/extractvalue pairs, and constant choices
    // leave selects of constants: fold them, so the markers are the globals themselves.
    InstSimplifyPass().run(*H, FAM);
    FAM.invalidate(*H, PreservedAnalyses::none());
    foldExtractsOfInserts(*H);
  }
  // The helpers' own bodies still hold the calls with parameters as operands; once nothing calls
  // them they go, or the lowering would take those calls for malformed ones.
  for (bool Erased = true; Erased;) {
    Erased = false;
    for (Function *W : Wrappers)
      if (W->getParent() && W->use_empty() && W->isDiscardableIfUnused()) {
        W->eraseFromParent();
        Wrappers.remove(W);
        Erased = Changed = true;
        break;
      }
  }
  return Changed;
}

} // namespace synthase
