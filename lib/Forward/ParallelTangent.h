// Forward mode of an OpenMP parallel region: the outlined region function is differentiated in
// tangent mode and forked in its place, with the shadows of its captured variables as extra
// arguments, so tangents are computed by the same threads, in the same parallel loop.
#pragma once
#include "Engine/Engine.h"

namespace synthase {

/// Replaces the fork call C (the generated function's copy of the source call I) by a fork of the
/// region's tangent. Shadow(V, l) is lane l's shadow of a captured value, or null when it has none.
/// Failed: generation must stop (the error was reported). Unchanged: nothing active crosses the
/// region, C stays. Replaced: C was erased.
enum class ForkResult { Failed, Unchanged, Replaced };
ForkResult emitTangentFork(Engine &E, const Signature &Caller, llvm::CallBase *I, llvm::CallBase *C,
                     llvm::function_ref<llvm::Value *(llvm::Value *, unsigned)> Shadow);

} // namespace synthase
