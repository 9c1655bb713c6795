// Enzyme's global-shadow API: `__enzyme_context(width)`, `__enzyme_shadow(ctx, &g, lane)` and
// `__enzyme_shadow(&g, width, lane)`, `__enzyme_zero_shadows(ctx)` and the `enzyme_context, ctx`
// marker. A context is a compile-time object: each `__enzyme_context` call site is one context
// with its own shadow set (Engine::selectShadowSet), and the call returns the address of a small
// descriptor global naming it. See docs/design.md "Global shadows".
#pragma once
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"

namespace synthase {

class Engine;

/// Replaces each `__enzyme_context(w)` call by its descriptor; false when nothing was there.
bool lowerContexts(llvm::Module &M);
/// The descriptor a context value comes from (directly or through a local variable assigned once
/// at -O0), or null when it is not one known at compile time.
llvm::GlobalVariable *contextOf(llvm::Value *V);
unsigned contextSet(const llvm::GlobalVariable *Ctx);
unsigned contextWidth(const llvm::GlobalVariable *Ctx);
/// Replaces `__enzyme_shadow` queries by the shadow's address (before any derivative is lowered,
/// so the queried shadows are known to be the user's from the first call on).
bool lowerShadowQueries(llvm::Module &M, Engine &E);
/// Replaces `__enzyme_zero_shadows(ctx)` by resets of every shadow of the context's set (after all
/// derivatives are lowered, when the set is complete).
bool lowerZeroShadows(llvm::Module &M, Engine &E);

} // namespace synthase
