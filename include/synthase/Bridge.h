// The front-end bridge: a compiler that knows *what* to differentiate (an "autodiff item": source
// function, generated target, mode, activities) asks Synthase to turn it into the engine's call
// convention and lower it. This is the contract rustc's `#[autodiff]` uses, available to any front
// end (C++ here, C in synthase-c.h, IR attributes and C annotations through the declarative door).
//
// Every failure is a value (llvm::Error) whose message names the item; nothing asserts or aborts.
#pragma once
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class CallInst;
class Function;
class IRBuilderBase;
class Module;
class Type;
class Value;
} // namespace llvm

namespace synthase {
struct Options;

namespace bridge {

enum class DiffMode { Forward, Reverse };

/// "forward" / "reverse".
llvm::StringRef modeName(DiffMode M);
/// Accepts forward/fwd and reverse/rev, case-insensitively.
llvm::Expected<DiffMode> parseMode(llvm::StringRef Text);

/// The activity of one *source-level* argument (or of the return value). A source-level argument
/// may be several IR arguments: a slice is (ptr, len), and the FakeActivitySize entry that follows
/// its activity stands for the length.
enum class ActivityKind : uint8_t {
  None,           ///< return only: nothing to differentiate
  Const,          ///< not differentiated
  Active,         ///< reverse: a scalar whose adjoint is returned
  ActiveOnly,     ///< reverse: as Active, the primal return value is not wanted
  Dual,           ///< forward: primal and tangent
  Dualv,          ///< forward, vector: one shadow buffer holding `width` strided tangents
  DualOnly,       ///< forward: only the tangent is needed
  DualvOnly,      ///< forward, vector: as Dualv, only the tangents are needed
  Duplicated,     ///< reverse: primal and an adjoint accumulator (+=)
  DuplicatedOnly, ///< reverse: as Duplicated, the primal result behind the pointer is not needed
  FakeActivitySize, ///< the length of the slice whose activity precedes it
};

struct DiffActivity {
  ActivityKind Kind = ActivityKind::None;
  /// FakeActivitySize only: byte size of one slice element (needed to compute a Dualv stride).
  std::optional<uint64_t> ElemSize;

  DiffActivity() = default;
  DiffActivity(ActivityKind K, std::optional<uint64_t> Size = std::nullopt)
      : Kind(K), ElemSize(Size) {}
  static DiffActivity fakeSize(std::optional<uint64_t> Size) {
    return {ActivityKind::FakeActivitySize, Size};
  }

  /// True when the argument is followed by shadow(s) at the IR level.
  bool hasShadow() const;
  /// Dualv / DualvOnly: one shadow buffer with a byte stride between the lanes.
  bool isStrided() const;

  /// "Duplicated", "FakeActivitySize(8)", "FakeActivitySize".
  std::string str() const;
  /// Inverse of str(); names are matched case-insensitively.
  static llvm::Expected<DiffActivity> parse(llvm::StringRef Text);

  friend bool operator==(const DiffActivity &, const DiffActivity &) = default;
};

/// The engine marker for an input activity ("enzyme_dup", ...); "" for None.
llvm::StringRef enzymeMarker(const DiffActivity &A);
bool isValidInputActivity(DiffMode M, const DiffActivity &A);
bool isValidReturnActivity(DiffMode M, const DiffActivity &A);

struct AutoDiffAttrs {
  DiffMode Mode = DiffMode::Reverse;
  unsigned Width = 1;
  DiffActivity Ret;
  std::vector<DiffActivity> Inputs;

  /// The engine returns the primal next to the derivative (enzyme_primal_return).
  bool wantsPrimalReturn() const;
  /// "mode=reverse;width=1;ret=Active;args=Active,Duplicated".
  std::string str() const;
};

struct AutoDiffItem {
  std::string Source; ///< the function to differentiate
  std::string Target; ///< the placeholder whose body becomes the call
  AutoDiffAttrs Attrs;

  /// "source=f;target=df;mode=...;width=...;ret=...;args=...".
  std::string str() const;
  /// Inverse of str(). Keys may come in any order; `mode` and `source` are required, `target`
  /// too unless DefaultTarget is given; `width` defaults to 1, `ret` to None. `activities=` is
  /// Rust's attribute order (inputs, then the return activity) and replaces args/ret; which
  /// entry is the return is decided later against the source (see resolveRustOrder).
  static llvm::Expected<AutoDiffItem> parse(llvm::StringRef Text,
                                            llvm::StringRef DefaultTarget = "");
  /// Set by parse() for `activities=`: Inputs holds every entry, the return not split off yet.
  bool RustOrder = false;
};

/// For an item written in Rust order: when the source returns a value, its last activity is the
/// return activity. A no-op for other items.
llvm::Error resolveRustOrder(AutoDiffItem &Item, const llvm::Function &Source);

/// Message prefix naming an item: "autodiff item 'f' -> 'df'".
std::string itemLabel(llvm::StringRef Source, llvm::StringRef Target);

struct CallOptions {
  /// Emit, before the call, a check that every duplicated slice's shadow is at least as long as
  /// its primal (`width` times as long for Dualv); on failure a message goes to stderr and the
  /// program aborts. Off by default: it costs a compare per slice per call.
  bool CheckSliceLengths = false;
};

/// The seed's generate_enzyme_call: with B positioned in the placeholder, declare
/// `__enzyme_fwddiff<OuterName>` / `__enzyme_autodiff<OuterName>` (variadic, noinline, returning
/// RetTy) and call it with FnToDiff, the options (enzyme_primal_return, enzyme_width N) and the
/// OuterArgs matched against Attrs.Inputs. In reverse mode with an active return, one trailing
/// floating-point OuterArg is passed as the seed of the return adjoint. If Dest is given, the
/// call's result is stored there. Nothing is emitted when an error is returned.
llvm::Expected<llvm::CallInst *>
generateEnzymeCall(llvm::IRBuilderBase &B, llvm::Function *FnToDiff, llvm::StringRef OuterName,
                   llvm::Type *RetTy, llvm::ArrayRef<llvm::Value *> OuterArgs,
                   const AutoDiffAttrs &Attrs, llvm::Value *Dest = nullptr,
                   const CallOptions &Opts = {});

/// The value of the function attribute that marks both ends of an item (rustc's spelling), so
/// later stages find them without matching names.
inline constexpr const char *MarkerAttr = "enzyme_marker";

/// For every item: check source and target exist, mark both with `enzyme_marker`, and replace the
/// target's body with the engine call (returning its result; an `sret` first parameter receives
/// it instead). Items are all checked before any IR changes. Does not lower.
llvm::Error expandItems(llvm::Module &M, llvm::ArrayRef<AutoDiffItem> Items,
                        const CallOptions &Opts = {});

struct DifferentiateOptions {
  /// The front end's opt-in (rustc: -Zautodiff=Enable). Items without it are refused.
  bool AutodiffEnabled = false;
  CallOptions Call;
  /// Engine options for the lowering; null uses the engine's defaults.
  const synthase::Options *Engine = nullptr;
};

/// The seed's differentiate(): expandItems, then lower every AD call site in M with the engine.
llvm::Error differentiate(llvm::Module &M, llvm::ArrayRef<AutoDiffItem> Items,
                          const DifferentiateOptions &Opts);

// ---- Declarative front door -------------------------------------------------------------------

/// Function attribute on a placeholder: its value is an item in str() form without `target=`.
inline constexpr const char *DeclarativeAttr = "synthase-autodiff";
/// Prefix of a C/C++ `__attribute__((annotate(...)))` string carrying the same text.
inline constexpr const char *AnnotationPrefix = "synthase_autodiff:";

/// Moves `synthase_autodiff:` entries of @llvm.global.annotations onto their functions as the
/// declarative attribute (dropping them from the annotation table). Returns how many moved.
llvm::Expected<unsigned> annotationsToAttributes(llvm::Module &M);
/// The items written as declarative attributes in M.
llvm::Expected<std::vector<AutoDiffItem>> collectDeclarativeItems(llvm::Module &M);
/// Annotations and attributes → engine calls in the placeholders (the attributes are removed).
/// Errors are reported as diagnostics through the module's LLVMContext. Returns true if M changed.
bool expandDeclarativeItems(llvm::Module &M);

} // namespace bridge
} // namespace synthase
