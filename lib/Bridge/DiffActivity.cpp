// DiffMode and DiffActivity: names, text form and which activities each mode admits.
#include "synthase/Bridge.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

using namespace llvm;

namespace synthase::bridge {

StringRef modeName(DiffMode M) { return M == DiffMode::Forward ? "forward" : "reverse"; }

Expected<DiffMode> parseMode(StringRef Text) {
  std::string L = Text.trim().lower();
  if (L == "forward" || L == "fwd")
    return DiffMode::Forward;
  if (L == "reverse" || L == "rev")
    return DiffMode::Reverse;
  return createStringError("unknown mode '%s' (expected forward or reverse)",
                           Text.str().c_str());
}

static constexpr std::pair<ActivityKind, const char *> KindNames[] = {
    {ActivityKind::None, "None"},
    {ActivityKind::Const, "Const"},
    {ActivityKind::Active, "Active"},
    {ActivityKind::ActiveOnly, "ActiveOnly"},
    {ActivityKind::Dual, "Dual"},
    {ActivityKind::Dualv, "Dualv"},
    {ActivityKind::DualOnly, "DualOnly"},
    {ActivityKind::DualvOnly, "DualvOnly"},
    {ActivityKind::Duplicated, "Duplicated"},
    {ActivityKind::DuplicatedOnly, "DuplicatedOnly"},
    {ActivityKind::FakeActivitySize, "FakeActivitySize"},
};

static const char *kindName(ActivityKind K) {
  for (auto &[Kind, Name] : KindNames)
    if (Kind == K)
      return Name;
  return "?";
}

bool DiffActivity::hasShadow() const {
  switch (Kind) {
  case ActivityKind::Dual:
  case ActivityKind::Dualv:
  case ActivityKind::DualOnly:
  case ActivityKind::DualvOnly:
  case ActivityKind::Duplicated:
  case ActivityKind::DuplicatedOnly:
    return true;
  default:
    return false;
  }
}

bool DiffActivity::isStrided() const {
  return Kind == ActivityKind::Dualv || Kind == ActivityKind::DualvOnly;
}

std::string DiffActivity::str() const {
  std::string S = kindName(Kind);
  if (Kind == ActivityKind::FakeActivitySize && ElemSize)
    S += "(" + utostr(*ElemSize) + ")";
  return S;
}

Expected<DiffActivity> DiffActivity::parse(StringRef Text) {
  StringRef T = Text.trim();
  StringRef Name = T, Arg;
  bool HasArg = false;
  if (size_t Open = T.find('('); Open != StringRef::npos) {
    if (!T.ends_with(")"))
      return createStringError("malformed activity '%s': missing ')'", T.str().c_str());
    Name = T.substr(0, Open).trim();
    Arg = T.substr(Open + 1, T.size() - Open - 2).trim();
    HasArg = true;
  }
  for (auto &[Kind, KName] : KindNames) {
    if (!Name.equals_insensitive(KName))
      continue;
    if (!HasArg)
      return DiffActivity(Kind);
    if (Kind != ActivityKind::FakeActivitySize)
      return createStringError("activity '%s' takes no argument", KName);
    uint64_t Size;
    if (Arg.getAsInteger(10, Size) || Size == 0)
      return createStringError("FakeActivitySize needs a positive element size, got '%s'",
                               Arg.str().c_str());
    return DiffActivity::fakeSize(Size);
  }
  return createStringError(
      "unknown activity '%s' (expected one of None, Const, Active, ActiveOnly, Dual, Dualv, "
      "DualOnly, DualvOnly, Duplicated, DuplicatedOnly, FakeActivitySize(N))",
      T.str().c_str());
}

StringRef enzymeMarker(const DiffActivity &A) {
  switch (A.Kind) {
  case ActivityKind::None: return "";
  case ActivityKind::Const: return "enzyme_const";
  // The only-variants differ in what the *return* carries, not in how the argument is passed.
  case ActivityKind::Active:
  case ActivityKind::ActiveOnly: return "enzyme_out";
  case ActivityKind::Dual:
  case ActivityKind::Duplicated: return "enzyme_dup";
  case ActivityKind::Dualv: return "enzyme_dupv";
  case ActivityKind::DualOnly:
  case ActivityKind::DuplicatedOnly: return "enzyme_dupnoneed";
  case ActivityKind::DualvOnly: return "enzyme_dupnoneedv";
  // A slice length is an ordinary integer the derivative does not depend on.
  case ActivityKind::FakeActivitySize: return "enzyme_const";
  }
  return "";
}

bool isValidInputActivity(DiffMode M, const DiffActivity &A) {
  switch (A.Kind) {
  case ActivityKind::Const:
  case ActivityKind::FakeActivitySize:
    return true;
  case ActivityKind::Dual:
  case ActivityKind::Dualv:
  case ActivityKind::DualOnly:
  case ActivityKind::DualvOnly:
    return M == DiffMode::Forward;
  case ActivityKind::Active:
  case ActivityKind::ActiveOnly:
  case ActivityKind::Duplicated:
  case ActivityKind::DuplicatedOnly:
    return M == DiffMode::Reverse;
  case ActivityKind::None:
    return false;
  }
  return false;
}

bool isValidReturnActivity(DiffMode M, const DiffActivity &A) {
  // A return has no shadow argument and no slice length; otherwise the input rules apply.
  switch (A.Kind) {
  case ActivityKind::None:
    return true;
  case ActivityKind::Duplicated:
  case ActivityKind::DuplicatedOnly:
  case ActivityKind::FakeActivitySize:
    return false;
  default:
    return isValidInputActivity(M, A);
  }
}

} // namespace synthase::bridge
