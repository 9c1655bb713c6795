// AD calls whose function arrives as a parameter: `void check(double (*f)(double*), ...)` that
// calls `__enzyme_autodiff((void*)f, ...)`. The differentiated function must be known at compile
// time, so the helper is specialized for each function its callers pass (a clone per function,
// the parameter replaced by the constant), through any number of helpers that pass it along.
#pragma once
#include "llvm/IR/Module.h"

namespace synthase {

/// Clones every helper for the functions its call sites pass in the position an AD call (or a
/// helper that forwards to one) reads its function from, and redirects those call sites. A helper
/// visible outside the module becomes a dispatcher over its clones; a pointer that matches none
/// of them aborts at run time with a message. Returns whether the module changed.
bool specializeFunctionArguments(llvm::Module &M);

} // namespace synthase
