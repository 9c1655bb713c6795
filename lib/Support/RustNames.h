// Diagnostics in the words of the Rust user: while a call that came from Rust is lowered (the
// synthase crate's placeholders, rustc's autodiff bridge), messages name activities as the
// `autodiff!` attributes do (`Duplicated`, `Dual`, `Const`, ...) instead of the C markers, and
// a problem at the call site points at the user's function instead of the generated placeholder.
#pragma once
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstrTypes.h"
#include <string>

namespace synthase {

/// Whether an entry-point call was written in terms of Rust activities: the synthase crate's
/// entry names (`__enzyme_autodiff: …`, not a C identifier) or rustc's autodiff bridge (metadata
/// markers, a Rust-mangled entry suffix). A hand-written C-style call from Rust names the C
/// markers itself and keeps them in messages.
bool isRustCall(const llvm::CallBase *Entry);

/// While alive, diagnostics speak Rust for the call being lowered (nested scopes are not needed:
/// one entry point is lowered at a time).
class RustDiagnosticsScope {
public:
  RustDiagnosticsScope(const llvm::CallBase *Entry, bool Forward, const llvm::Function *Primal);
  ~RustDiagnosticsScope();
  RustDiagnosticsScope(const RustDiagnosticsScope &) = delete;
  RustDiagnosticsScope &operator=(const RustDiagnosticsScope &) = delete;
};

/// Whether the call being lowered came from Rust (a RustDiagnosticsScope is alive for it).
bool speakingRust();

/// The C marker names in Text replaced by the activity names of the current Rust call (Text
/// unchanged outside a Rust scope).
std::string rustActivityText(llvm::StringRef Text);

/// For an instruction of the placeholder that made the current Rust call: "file:line" of the
/// differentiated function (with debug info), else "".
std::string rustPrimalLocation(const llvm::Instruction *I);
/// The differentiated function of the current Rust call when I belongs to its placeholder.
const llvm::Function *rustPrimalFor(const llvm::Instruction *I);

/// A Rust symbol without its hash suffix ("crate::f::h0123456789abcdef" -> "crate::f").
std::string stripRustHash(llvm::StringRef Demangled);

/// An entry-point name shortened to its C prefix (the synthase crate appends a link-error text).
llvm::StringRef shortEntryName(llvm::StringRef Name);

} // namespace synthase
