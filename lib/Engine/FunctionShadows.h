// Indirect calls on active data (vtables, std::function, function-pointer tables, callbacks).
//
// The shadow of a function pointer is not stored anywhere: the primal pointer itself selects the
// derivative. Preprocessing routes each indirect call of a clone through a small trampoline
// `synthase.indirect(fp, args...)` that has a body (so the primal still runs it as written) and
// that both generators see as an ordinary defined callee. Its derivative is a dispatcher: it
// compares fp with every function of the call's type whose address is taken in the module and
// calls that function's tangent (forward) or augmented sweep, taping which one ran (reverse).
// A target with no derivative (defined elsewhere, or one whose derivative could not be
// generated) aborts at run time with a message; no candidate at all is a compile-time error.
#pragma once
#include "Engine/Engine.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace synthase {

inline constexpr const char *IndirectTrampolineAttr = "synthase-indirect-call";
inline bool isIndirectTrampoline(const llvm::Function *F) {
  return F && F->hasFnAttribute(IndirectTrampolineAttr);
}

/// Rewrites the indirect calls of clone F that could carry derivatives into trampoline calls.
void routeIndirectCalls(llvm::Function &F);

/// A pointer that is only called, compared, or read for code pointers and integers (a vtable
/// pointer, a function pointer read from a table): it needs no shadow, and the shadow memory
/// behind it (an object's shadow vptr) is never read.
bool onlyReachesCode(const llvm::Value *V);

/// The derivatives of a trampoline (S.Fn): Register is called with the dispatcher(s) before any
/// candidate is differentiated, so recursion through function pointers finds them.
llvm::Function *indirectTangent(Engine &E, const Signature &S,
                                llvm::function_ref<void(llvm::Function *)> Register);
GradientPair indirectGradient(Engine &E, const Signature &S,
                              llvm::function_ref<void(GradientPair)> Register);

/// Enzyme's `__enzyme_virtualreverse(fp)` builds a shadow record for a function or vtable
/// pointer that user code stores into shadow objects. Here a shadow function pointer is never
/// read, so the call is the pointer itself; code written for Enzyme compiles and stays right.
bool lowerVirtualReverse(llvm::Module &M);

} // namespace synthase
