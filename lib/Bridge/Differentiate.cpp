// The seed's differentiate(): items → engine calls in their placeholders → lowered derivatives.
#include "Bridge/DiagnosticCapture.h"
#include "Bridge/EnzymeCall.h"
#include "synthase/Synthase.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace synthase::bridge {
namespace {

struct PlacedItem {
  Function *Source;
  Function *Target;
  PreparedCall Call;
  Argument *SRet; ///< the placeholder's sret parameter, which receives the result
};

Expected<PlacedItem> placeItem(Module &M, const AutoDiffItem &Given) {
  AutoDiffItem Item = Given;
  std::string Label = itemLabel(Item.Source, Item.Target);
  Function *Source = M.getFunction(Item.Source);
  if (!Source)
    return createStringError(Label + ": could not find source function '" + Item.Source + "'");
  Function *Target = M.getFunction(Item.Target);
  if (!Target)
    return createStringError(Label + ": could not find target function '" + Item.Target + "'");
  if (Source == Target)
    return createStringError(Label + ": source and target are the same function");
  if (Error E = resolveRustOrder(Item, *Source))
    return std::move(E);

  // A placeholder returning a large value by sret gets the result through that pointer, and
  // the pointer is not one of the arguments the activities describe.
  Argument *SRet = nullptr;
  Type *RetTy = Target->getReturnType();
  SmallVector<Value *, 8> OuterArgs;
  for (Argument &A : Target->args())
    OuterArgs.push_back(&A);
  if (RetTy->isVoidTy() && Target->arg_size() > 0 && Target->hasParamAttribute(0, Attribute::StructRet)) {
    SRet = Target->getArg(0);
    RetTy = Target->getParamStructRetType(0);
    OuterArgs.erase(OuterArgs.begin());
  }
  auto Call = prepareEnzymeCall(M, Source, "_" + Item.Target, RetTy, OuterArgs,
                                Item.Attrs, Label);
  if (!Call)
    return Call.takeError();
  return PlacedItem{Source, Target, std::move(*Call), SRet};
}

/// Replaces the placeholder's body (whatever the front end put there) with the engine call.
void fillPlaceholder(PlacedItem &P, const CallOptions &Opts) {
  Function &T = *P.Target;
  SmallVector<BasicBlock *, 8> OldBody;
  for (BasicBlock &BB : T)
    OldBody.push_back(&BB);
  for (BasicBlock *BB : OldBody)
    BB->dropAllReferences();
  for (BasicBlock *BB : OldBody)
    BB->eraseFromParent();

  IRBuilder<> B(BasicBlock::Create(T.getContext(), "entry", &T));
  CallInst *Call = emitEnzymeCall(B, P.Call, P.SRet, Opts);
  if (P.SRet || T.getReturnType()->isVoidTy())
    B.CreateRetVoid();
  else
    B.CreateRet(Call);
  P.Source->addFnAttr(MarkerAttr);
  T.addFnAttr(MarkerAttr);
}

} // namespace

Error expandItems(Module &M, ArrayRef<AutoDiffItem> Items, const CallOptions &Opts) {
  // Check every item before touching the module, so a bad item leaves it as it was.
  std::vector<PlacedItem> Placed;
  for (const AutoDiffItem &Item : Items) {
    auto P = placeItem(M, Item);
    if (!P)
      return P.takeError();
    for (const PlacedItem &Earlier : Placed)
      if (Earlier.Target == P->Target)
        return createStringError(itemLabel(Item.Source, Item.Target) +
                                 ": another item already fills this target");
    Placed.push_back(std::move(*P));
  }
  for (PlacedItem &P : Placed)
    fillPlaceholder(P, Opts);
  return Error::success();
}

Error differentiate(Module &M, ArrayRef<AutoDiffItem> Items, const DifferentiateOptions &Opts) {
  if (!Items.empty() && !Opts.AutodiffEnabled)
    return createStringError(
        itemLabel(Items.front().Source, Items.front().Target) +
        ": autodiff is not enabled; enable it in the options (rustc: -Zautodiff=Enable) to "
        "differentiate " + Twine(Items.size()) + " item(s)");
  if (!Opts.AutodiffEnabled)
    return Error::success();
  if (Error E = expandItems(M, Items, Opts.Call))
    return E;
  DiagnosticCapture Capture(M.getContext());
  static const Options Defaults{};
  lowerModule(M, Opts.Engine ? *Opts.Engine : Defaults);
  if (Capture.errors())
    return createStringError("the engine refused to lower module '" + M.getModuleIdentifier() +
                             "':\n" + Capture.messages());
  return Error::success();
}

} // namespace synthase::bridge
