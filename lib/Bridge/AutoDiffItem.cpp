// AutoDiffAttrs / AutoDiffItem and their one-line text form. The same text is what `str()` prints,
// what the declarative attribute and C annotation carry, and what the C API parses, so an item
// survives any front end unchanged.
#include "synthase/Bridge.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Function.h"

using namespace llvm;

namespace synthase::bridge {

std::string itemLabel(StringRef Source, StringRef Target) {
  return ("autodiff item '" + Source + "' -> '" + Target + "'").str();
}

bool AutoDiffAttrs::wantsPrimalReturn() const {
  // ActiveOnly / DualOnly are exactly the "derivative without the primal" variants.
  return Ret.Kind == ActivityKind::Dual || Ret.Kind == ActivityKind::Active;
}

static std::string joinActivities(ArrayRef<DiffActivity> As) {
  std::string S;
  for (size_t I = 0; I < As.size(); ++I)
    S += (I ? "," : "") + As[I].str();
  return S;
}

std::string AutoDiffAttrs::str() const {
  return "mode=" + modeName(Mode).str() + ";width=" + utostr(Width) + ";ret=" + Ret.str() +
         ";args=" + joinActivities(Inputs);
}

std::string AutoDiffItem::str() const {
  std::string S = "source=" + Source + ";target=" + Target + ";";
  if (!RustOrder)
    return S + Attrs.str();
  return S + "mode=" + modeName(Attrs.Mode).str() + ";width=" + utostr(Attrs.Width) +
         ";activities=" + joinActivities(Attrs.Inputs);
}

/// Splits "A,B,FakeActivitySize(8)" at top-level commas; an empty list means no arguments.
static Expected<std::vector<DiffActivity>> parseActivityList(StringRef Text) {
  std::vector<DiffActivity> Out;
  if (Text.trim().empty())
    return Out;
  SmallVector<StringRef, 8> Parts;
  Text.split(Parts, ',');
  for (StringRef P : Parts) {
    auto A = DiffActivity::parse(P);
    if (!A)
      return A.takeError();
    Out.push_back(*A);
  }
  return Out;
}

Expected<AutoDiffItem> AutoDiffItem::parse(StringRef Text, StringRef DefaultTarget) {
  AutoDiffItem Item;
  Item.Target = DefaultTarget.str();
  bool SawMode = false, SawSource = false, SawArgsOrRet = false, SawActivities = false;
  SmallVector<StringRef, 8> Seen;
  SmallVector<StringRef, 8> Fields;
  Text.split(Fields, ';', -1, /*KeepEmpty=*/false);
  auto fail = [&](const Twine &Msg) -> Expected<AutoDiffItem> {
    return createStringError("in '" + Text + "': " + Msg);
  };
  for (StringRef F : Fields) {
    F = F.trim();
    if (F.empty())
      continue;
    auto [Key, Value] = F.split('=');
    Key = Key.trim();
    Value = Value.trim();
    if (!F.contains('='))
      return fail("expected key=value, got '" + F + "'");
    if (is_contained(Seen, Key))
      return fail("key '" + Key + "' given twice");
    Seen.push_back(Key);
    if (Key == "source") {
      if (Value.empty())
        return fail("empty source");
      Item.Source = Value.str();
      SawSource = true;
    } else if (Key == "target") {
      Item.Target = Value.str();
    } else if (Key == "mode") {
      auto M = parseMode(Value);
      if (!M)
        return fail(toString(M.takeError()));
      Item.Attrs.Mode = *M;
      SawMode = true;
    } else if (Key == "width") {
      unsigned W;
      if (Value.getAsInteger(10, W) || W == 0)
        return fail("width must be a positive integer, got '" + Value + "'");
      Item.Attrs.Width = W;
    } else if (Key == "ret") {
      auto R = DiffActivity::parse(Value);
      if (!R)
        return fail(toString(R.takeError()));
      Item.Attrs.Ret = *R;
      SawArgsOrRet = true;
    } else if (Key == "args" || Key == "activities") {
      auto L = parseActivityList(Value);
      if (!L)
        return fail(toString(L.takeError()));
      Item.Attrs.Inputs = std::move(*L);
      (Key == "args" ? SawArgsOrRet : SawActivities) = true;
    } else {
      return fail("unknown key '" + Key +
                  "' (expected source, target, mode, width, ret, args or activities)");
    }
  }
  if (!SawSource)
    return fail("missing source=<function to differentiate>");
  if (Item.Target.empty())
    return fail("missing target=<placeholder function>");
  if (!SawMode)
    return fail("missing mode=forward|reverse");
  if (SawActivities && SawArgsOrRet)
    return fail("give either activities= (Rust order) or args=/ret=, not both");
  Item.RustOrder = SawActivities;
  return Item;
}

Error resolveRustOrder(AutoDiffItem &Item, const Function &Source) {
  if (!Item.RustOrder)
    return Error::success();
  Item.RustOrder = false;
  if (Source.getReturnType()->isVoidTy())
    return Error::success();
  if (Item.Attrs.Inputs.empty())
    return createStringError(itemLabel(Item.Source, Item.Target) + ": '" + Source.getName() +
                             "' returns a value, so activities= must end with its activity");
  Item.Attrs.Ret = Item.Attrs.Inputs.back();
  Item.Attrs.Inputs.pop_back();
  return Error::success();
}

} // namespace synthase::bridge
