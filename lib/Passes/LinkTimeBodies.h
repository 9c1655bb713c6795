// Which derivatives a compile-time run of the pass leaves for link time. Full LTO sees the whole
// program, so a function whose body, or whose callee's body, is in another translation unit can
// be differentiated there; a plain compile then lowers the call at the end of its pipeline
// (Stage::FinalCheck), where a body that is still missing is reported.
#pragma once
#include "llvm/IR/Function.h"

namespace synthase {

/// Differentiating F needs a body this module lacks: F is a declaration, or some function it
/// reaches on paths that return calls a declaration that may carry a derivative (a pointer or a
/// float among its arguments or result) and that no rule, registration or list of the engine
/// covers (a helper defined in another file).
bool needsBodiesFromOtherModules(const llvm::Function *F);

} // namespace synthase
