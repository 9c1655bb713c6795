// The declarative front door: an autodiff item written into the IR itself, either as the
// `synthase-autodiff` attribute of the placeholder or as a C/C++
// `__attribute__((annotate("synthase_autodiff:...")))`, which clang records in
// @llvm.global.annotations. Both expand through the same expandItems as the library API.
#include "Passes/Lowering.h"
#include "Support/Diagnostics.h"
#include "synthase/Bridge.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace synthase::bridge {

Expected<unsigned> annotationsToAttributes(Module &M) {
  GlobalVariable *Table = M.getNamedGlobal("llvm.global.annotations");
  if (!Table || !Table->hasInitializer())
    return 0;
  auto *Entries = dyn_cast<ConstantArray>(Table->getInitializer());
  if (!Entries)
    return 0;
  StringRef Prefix = AnnotationPrefix;
  SmallVector<Constant *, 8> Kept;
  SmallVector<GlobalVariable *, 8> Strings;
  unsigned Moved = 0;
  for (Use &U : Entries->operands()) {
    auto *Entry = dyn_cast<ConstantStruct>(U.get());
    Function *F = nullptr;
    StringRef Text;
    if (Entry && Entry->getNumOperands() >= 2) {
      F = dyn_cast<Function>(Entry->getOperand(0)->stripPointerCasts());
      if (!getConstantStringInfo(Entry->getOperand(1), Text))
        Text = "";
    }
    if (!F || !Text.starts_with(Prefix)) {
      Kept.push_back(cast<Constant>(U.get()));
      continue;
    }
    if (F->hasFnAttribute(DeclarativeAttr))
      return createStringError("function '" + F->getName() +
                               "' carries more than one autodiff annotation; a placeholder is "
                               "filled by exactly one item");
    F->addFnAttr(DeclarativeAttr, Text.drop_front(Prefix.size()).trim());
    if (auto *S = dyn_cast<GlobalVariable>(Entry->getOperand(1)->stripPointerCasts()))
      Strings.push_back(S);
    ++Moved;
  }
  if (!Moved)
    return 0;
  // The table must not keep naming a function whose body is about to be replaced, and the
  // annotation is consumed: rebuild it without our entries.
  if (Kept.empty()) {
    Table->eraseFromParent();
  } else {
    auto *Ty = ArrayType::get(Entries->getType()->getElementType(), Kept.size());
    auto *NewTable = new GlobalVariable(M, Ty, Table->isConstant(), Table->getLinkage(),
                                        ConstantArray::get(Ty, Kept), "", Table);
    NewTable->setSection(Table->getSection());
    NewTable->takeName(Table);
    Table->eraseFromParent();
  }
  for (GlobalVariable *S : Strings) {
    // The old table's constant still refers to the string until it is swept.
    S->removeDeadConstantUsers();
    if (S->use_empty() && S->hasLocalLinkage())
      S->eraseFromParent();
  }
  return Moved;
}

/// The item a placeholder's declarative attribute describes.
static Expected<AutoDiffItem> declaredItem(Function &F) {
  std::string Spec = F.getFnAttribute(DeclarativeAttr).getValueAsString().str();
  auto Item = AutoDiffItem::parse(Spec, F.getName());
  if (!Item)
    return createStringError("malformed " + Twine(DeclarativeAttr) + " attribute on '" +
                             F.getName() + "': " + toString(Item.takeError()));
  if (Item->Target != F.getName())
    return createStringError(Twine(DeclarativeAttr) + " attribute on '" + F.getName() +
                             "' names another target '" + Item->Target +
                             "'; the attribute always fills the function it is attached to");
  return Item;
}

Expected<std::vector<AutoDiffItem>> collectDeclarativeItems(Module &M) {
  std::vector<AutoDiffItem> Items;
  for (Function &F : M) {
    if (!F.hasFnAttribute(DeclarativeAttr))
      continue;
    auto Item = declaredItem(F);
    if (!Item)
      return Item.takeError();
    Items.push_back(std::move(*Item));
  }
  return Items;
}

bool expandDeclarativeItems(Module &M) {
  bool Changed = false;
  auto Moved = annotationsToAttributes(M);
  if (!Moved)
    M.getContext().diagnose(
        DiagnosticInfoGeneric("synthase: " + toString(Moved.takeError()), DS_Error));
  else
    Changed = *Moved > 0;

  SmallVector<Function *, 4> Placeholders;
  for (Function &F : M)
    if (F.hasFnAttribute(DeclarativeAttr))
      Placeholders.push_back(&F);
  // One item at a time, so one bad placeholder does not hide the diagnostics of the others.
  for (Function *F : Placeholders) {
    auto Item = declaredItem(*F);
    Error E = Item ? expandItems(M, *Item) : Item.takeError();
    if (E) {
      reportError(F, nullptr, toString(std::move(E)));
      continue;
    }
    F->removeFnAttr(DeclarativeAttr);
    Changed = true;
  }
  return Changed;
}

} // namespace synthase::bridge

namespace synthase {
bool expandDeclarativeFrontDoor(llvm::Module &M) { return bridge::expandDeclarativeItems(M); }
} // namespace synthase
