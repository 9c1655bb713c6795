// The C API: thin wrappers that turn llvm::Error into LLVM-C style (status, message) pairs.
#include "synthase/synthase-c.h"
#include "Bridge/DiagnosticCapture.h"
#include "synthase/Bridge.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include <cstdlib>
#include <cstring>

using namespace llvm;
using namespace synthase::bridge;

struct SynthaseOpaqueAutoDiffItem {
  AutoDiffItem Item;
};

namespace {

char *copyMessage(StringRef S) {
  char *Out = static_cast<char *>(std::malloc(S.size() + 1));
  if (!Out)
    return nullptr;
  std::memcpy(Out, S.data(), S.size());
  Out[S.size()] = '\0';
  return Out;
}

/// Reports E through ErrorMessage (if given); returns the LLVM-C failure flag.
LLVMBool fail(Error E, char **ErrorMessage) {
  std::string Msg = toString(std::move(E));
  if (ErrorMessage)
    *ErrorMessage = copyMessage(Msg);
  return 1;
}

LLVMBool fail(const Twine &Msg, char **ErrorMessage) {
  return fail(createStringError(Msg), ErrorMessage);
}

LLVMBool done(Error E, char **ErrorMessage) {
  if (E)
    return fail(std::move(E), ErrorMessage);
  if (ErrorMessage)
    *ErrorMessage = nullptr;
  return 0;
}

bool validKind(int Kind) {
  return Kind >= SynthaseActivityNone && Kind <= SynthaseActivityFakeActivitySize;
}

DiffActivity toActivity(int Kind, uint64_t ElemSize) {
  DiffActivity A(static_cast<ActivityKind>(Kind));
  if (A.Kind == ActivityKind::FakeActivitySize && ElemSize != SYNTHASE_NO_ELEM_SIZE)
    A.ElemSize = ElemSize;
  return A;
}

Expected<std::vector<AutoDiffItem>> unwrapItems(SynthaseAutoDiffItemRef *Items, unsigned N) {
  std::vector<AutoDiffItem> Out;
  for (unsigned I = 0; I < N; ++I) {
    if (!Items || !Items[I])
      return createStringError("autodiff item #" + Twine(I) + " of " + Twine(N) + " is NULL");
    Out.push_back(Items[I]->Item);
  }
  return Out;
}

} // namespace

extern "C" {

SynthaseAutoDiffItemRef SynthaseCreateAutoDiffItem(const char *Source, const char *Target,
                                                   int Mode, unsigned Width,
                                                   char **ErrorMessage) {
  std::string Label = itemLabel(Source ? Source : "", Target ? Target : "");
  if (!Source || !Target || !*Source || !*Target) {
    fail(Label + ": source and target names are required", ErrorMessage);
    return nullptr;
  }
  if (Mode != SynthaseDiffModeForward && Mode != SynthaseDiffModeReverse) {
    fail(Label + ": unknown mode " + Twine(Mode) + " (expected SynthaseDiffModeForward or "
                 "SynthaseDiffModeReverse)", ErrorMessage);
    return nullptr;
  }
  if (Width == 0) {
    fail(Label + ": width must be at least 1", ErrorMessage);
    return nullptr;
  }
  auto *R = new SynthaseOpaqueAutoDiffItem;
  R->Item.Source = Source;
  R->Item.Target = Target;
  R->Item.Attrs.Mode = Mode == SynthaseDiffModeForward ? DiffMode::Forward : DiffMode::Reverse;
  R->Item.Attrs.Width = Width;
  if (ErrorMessage)
    *ErrorMessage = nullptr;
  return R;
}

SynthaseAutoDiffItemRef SynthaseParseAutoDiffItem(const char *Text, char **ErrorMessage) {
  auto Item = AutoDiffItem::parse(Text ? Text : "");
  if (!Item) {
    fail(Item.takeError(), ErrorMessage);
    return nullptr;
  }
  if (ErrorMessage)
    *ErrorMessage = nullptr;
  return new SynthaseOpaqueAutoDiffItem{std::move(*Item)};
}

void SynthaseDisposeAutoDiffItem(SynthaseAutoDiffItemRef Item) { delete Item; }

char *SynthasePrintAutoDiffItem(SynthaseAutoDiffItemRef Item) {
  return copyMessage(Item ? Item->Item.str() : "");
}

LLVMBool SynthaseSetReturnActivity(SynthaseAutoDiffItemRef Item, int Kind, char **ErrorMessage) {
  if (!Item)
    return fail("no autodiff item given", ErrorMessage);
  if (!validKind(Kind))
    return fail(itemLabel(Item->Item.Source, Item->Item.Target) + ": unknown activity kind " +
                    Twine(Kind),
                ErrorMessage);
  Item->Item.Attrs.Ret = toActivity(Kind, SYNTHASE_NO_ELEM_SIZE);
  return done(Error::success(), ErrorMessage);
}

LLVMBool SynthaseAddInputActivity(SynthaseAutoDiffItemRef Item, int Kind, uint64_t ElemSize,
                                  char **ErrorMessage) {
  if (!Item)
    return fail("no autodiff item given", ErrorMessage);
  if (!validKind(Kind))
    return fail(itemLabel(Item->Item.Source, Item->Item.Target) + ": unknown activity kind " +
                    Twine(Kind),
                ErrorMessage);
  Item->Item.Attrs.Inputs.push_back(toActivity(Kind, ElemSize));
  return done(Error::success(), ErrorMessage);
}

int SynthaseGetMode(SynthaseAutoDiffItemRef Item) {
  return Item && Item->Item.Attrs.Mode == DiffMode::Forward ? SynthaseDiffModeForward
                                                            : SynthaseDiffModeReverse;
}

unsigned SynthaseGetWidth(SynthaseAutoDiffItemRef Item) {
  return Item ? Item->Item.Attrs.Width : 0;
}

int SynthaseGetReturnActivity(SynthaseAutoDiffItemRef Item) {
  return Item ? static_cast<int>(Item->Item.Attrs.Ret.Kind) : SynthaseActivityNone;
}

unsigned SynthaseGetNumInputActivities(SynthaseAutoDiffItemRef Item) {
  return Item ? Item->Item.Attrs.Inputs.size() : 0;
}

int SynthaseGetInputActivity(SynthaseAutoDiffItemRef Item, unsigned Index, uint64_t *ElemSize) {
  if (!Item || Index >= Item->Item.Attrs.Inputs.size())
    return SynthaseActivityNone;
  const DiffActivity &A = Item->Item.Attrs.Inputs[Index];
  if (ElemSize)
    *ElemSize = A.ElemSize.value_or(SYNTHASE_NO_ELEM_SIZE);
  return static_cast<int>(A.Kind);
}

const char *SynthaseActivityMarker(int Kind) {
  if (!validKind(Kind))
    return "";
  return enzymeMarker(toActivity(Kind, SYNTHASE_NO_ELEM_SIZE)).data();
}

void SynthaseDisposeMessage(char *Message) { std::free(Message); }

LLVMBool SynthaseGenerateEnzymeCall(LLVMBuilderRef Builder, LLVMValueRef FnToDiff,
                                    const char *OuterName, LLVMTypeRef RetTy, LLVMValueRef *Args,
                                    unsigned NumArgs, SynthaseAutoDiffItemRef Item,
                                    LLVMValueRef Dest, LLVMBool CheckSliceLengths,
                                    LLVMValueRef *Call, char **ErrorMessage) {
  if (!Builder || !Item)
    return fail("a builder and an autodiff item are required", ErrorMessage);
  auto *Fn = dyn_cast_or_null<Function>(unwrap(FnToDiff));
  if (!Fn)
    return fail(itemLabel(Item->Item.Source, Item->Item.Target) +
                    ": the value to differentiate is not a function",
                ErrorMessage);
  SmallVector<Value *, 8> Outer;
  for (unsigned I = 0; I < NumArgs; ++I)
    Outer.push_back(unwrap(Args[I]));
  CallOptions Opts;
  Opts.CheckSliceLengths = CheckSliceLengths;
  auto CI = generateEnzymeCall(*unwrap(Builder), Fn, OuterName ? OuterName : "", unwrap(RetTy),
                               Outer, Item->Item.Attrs, unwrap(Dest), Opts);
  if (!CI)
    return fail(CI.takeError(), ErrorMessage);
  if (Call)
    *Call = wrap(*CI);
  return done(Error::success(), ErrorMessage);
}

LLVMBool SynthaseExpandItems(LLVMModuleRef M, SynthaseAutoDiffItemRef *Items, unsigned NumItems,
                             LLVMBool CheckSliceLengths, char **ErrorMessage) {
  if (!M)
    return fail("no module given", ErrorMessage);
  CallOptions Opts;
  Opts.CheckSliceLengths = CheckSliceLengths;
  auto List = unwrapItems(Items, NumItems);
  if (!List)
    return fail(List.takeError(), ErrorMessage);
  return done(expandItems(*unwrap(M), *List, Opts), ErrorMessage);
}

LLVMBool SynthaseDifferentiate(LLVMModuleRef M, SynthaseAutoDiffItemRef *Items, unsigned NumItems,
                               LLVMBool AutodiffEnabled, LLVMBool CheckSliceLengths,
                               char **ErrorMessage) {
  if (!M)
    return fail("no module given", ErrorMessage);
  DifferentiateOptions Opts;
  Opts.AutodiffEnabled = AutodiffEnabled;
  Opts.Call.CheckSliceLengths = CheckSliceLengths;
  auto List = unwrapItems(Items, NumItems);
  if (!List)
    return fail(List.takeError(), ErrorMessage);
  return done(differentiate(*unwrap(M), *List, Opts), ErrorMessage);
}

LLVMBool SynthaseExpandDeclarativeItems(LLVMModuleRef M, char **ErrorMessage) {
  if (!M)
    return fail("no module given", ErrorMessage);
  Module &Mod = *unwrap(M);
  DiagnosticCapture Capture(Mod.getContext());
  expandDeclarativeItems(Mod);
  if (Capture.errors())
    return fail(StringRef(Capture.messages()).rtrim(), ErrorMessage);
  return done(Error::success(), ErrorMessage);
}

} // extern "C"
