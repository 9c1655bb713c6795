#include "Support/RustNames.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Metadata.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdlib>

using namespace llvm;

namespace synthase {

namespace {
struct RustCall {
  bool Forward = false;
  const Function *Caller = nullptr;
  const Function *Primal = nullptr;
};
// Lowering handles one entry point at a time; thread_local keeps parallel LTO jobs apart.
thread_local const RustCall *Current = nullptr;
thread_local RustCall Storage;
} // namespace

static bool isRustMangled(StringRef S) {
  if (S.starts_with("_R")) {
    char *D = rustDemangle(std::string_view(S.data(), S.size()));
    std::free(D);
    return D != nullptr;
  }
  // Legacy mangling: _ZN … 17h<16 hex digits>E
  if (!S.starts_with("_ZN") || !S.ends_with("E") || S.size() < 21)
    return false;
  StringRef Hash = S.drop_back().take_back(17);
  return Hash[0] == 'h' && Hash.drop_front().find_if_not([](char C) { return isHexDigit(C); }) == StringRef::npos &&
         S.drop_back(18).ends_with("17");
}

bool isRustCall(const CallBase *Entry) {
  // The callee is often called with another function type than it is declared with.
  const auto *Callee = dyn_cast<Function>(Entry->getCalledOperand()->stripPointerCasts());
  StringRef Name = Callee ? Callee->getName() : "";
  for (StringRef P : {"__enzyme_autodiff", "__enzyme_fwddiff"})
    if (Name.starts_with(P)) {
      StringRef Rest = Name.drop_front(P.size());
      if (Rest.starts_with(":") || isRustMangled(Rest))
        return true;
    }
  // rustc's autodiff bridge: markers as metadata strings.
  for (const Value *A : Entry->args())
    if (isa<MetadataAsValue>(A))
      return true;
  return false;
}

RustDiagnosticsScope::RustDiagnosticsScope(const CallBase *Entry, bool Forward, const Function *Primal) {
  if (!isRustCall(Entry))
    return;
  Storage = RustCall{Forward, Entry->getFunction(), Primal};
  Current = &Storage;
}

RustDiagnosticsScope::~RustDiagnosticsScope() { Current = nullptr; }

static StringRef rustActivity(StringRef Marker, bool Forward) {
  if (Marker == "enzyme_const")
    return "Const";
  if (Marker == "enzyme_out")
    return Forward ? "Active (reverse mode only)" : "Active";
  if (Marker == "enzyme_dup")
    return Forward ? "Dual" : "Duplicated";
  if (Marker == "enzyme_dupnoneed")
    return Forward ? "DualOnly" : "DuplicatedOnly";
  if (Marker == "enzyme_dupv")
    return Forward ? "Dualv" : "Duplicated";
  if (Marker == "enzyme_dupnoneedv")
    return Forward ? "DualvOnly" : "DuplicatedOnly";
  if (Marker == "enzyme_width")
    return "the width";
  return "";
}

// Rust symbols in a message (names of the differentiated function, of callees) as the user
// wrote them.
static std::string demangleRustSymbols(StringRef Text) {
  std::string Out;
  auto IsSym = [](char C) { return isAlnum(C) || C == '_' || C == '$' || C == '.'; };
  while (!Text.empty()) {
    size_t At = Text.find('_');
    while (At != StringRef::npos && !(Text.substr(At).starts_with("_ZN") || Text.substr(At).starts_with("_R")))
      At = Text.find('_', At + 1);
    if (At == StringRef::npos) {
      Out += Text;
      break;
    }
    size_t End = At;
    while (End < Text.size() && IsSym(Text[End]))
      ++End;
    StringRef Sym = Text.slice(At, End);
    Out += Text.take_front(At);
    if (isRustMangled(Sym) && (At == 0 || !IsSym(Text[At - 1])))
      Out += stripRustHash(demangle(Sym.str()));
    else
      Out += Sym;
    Text = Text.drop_front(End);
  }
  return Out;
}

bool speakingRust() { return Current != nullptr; }

std::string rustActivityText(StringRef Input) {
  if (!Current)
    return Input.str();
  std::string Demangled = demangleRustSymbols(Input);
  StringRef Text = Demangled;
  std::string Out;
  // The entry points are the attributes for the Rust user.
  for (auto [C, Rust] : {std::pair{"__enzyme_autodiff", "autodiff_reverse"}, std::pair{"__enzyme_fwddiff", "autodiff_forward"}})
    if (Text.starts_with(C)) {
      Out += Rust;
      Text = Text.drop_front(StringRef(C).size());
    }
  while (!Text.empty()) {
    size_t At = Text.find("enzyme_");
    // Only whole identifiers: "__enzyme_autodiff" stays.
    while (At != StringRef::npos && At > 0 && (isAlnum(Text[At - 1]) || Text[At - 1] == '_'))
      At = Text.find("enzyme_", At + 1);
    if (At == StringRef::npos) {
      Out += Text;
      break;
    }
    size_t End = At + 7;
    while (End < Text.size() && (isAlnum(Text[End]) || Text[End] == '_'))
      ++End;
    StringRef Marker = Text.slice(At, End);
    StringRef Rust = rustActivity(Marker, Current->Forward);
    Out += Text.take_front(At);
    if (Rust.empty())
      Out += Marker;
    else
      Out += ("`" + Rust + "`").str();
    Text = Text.drop_front(End);
  }
  return Out;
}

const Function *rustPrimalFor(const Instruction *I) {
  if (!Current || !I || I->getFunction() != Current->Caller)
    return nullptr;
  return Current->Primal;
}

std::string rustPrimalLocation(const Instruction *I) {
  const Function *P = rustPrimalFor(I);
  const DISubprogram *SP = P ? P->getSubprogram() : nullptr;
  if (!SP || !SP->getLine())
    return "";
  return (SP->getFilename() + ":" + Twine(SP->getLine())).str();
}

std::string stripRustHash(StringRef D) {
  size_t At = D.rfind("::h");
  if (At != StringRef::npos && D.size() - At == 19 &&
      D.drop_front(At + 3).find_if_not([](char C) { return isHexDigit(C); }) == StringRef::npos)
    return D.take_front(At).str();
  return D.str();
}

StringRef shortEntryName(StringRef Name) {
  for (StringRef P : {"__enzyme_autodiff", "__enzyme_fwddiff"})
    if (Name.starts_with(P) && Name.drop_front(P.size()).starts_with(":"))
      return Name.take_front(P.size());
  return Name;
}

} // namespace synthase
