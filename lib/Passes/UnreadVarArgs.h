// Variadic functions that never read their variable arguments, such as libstdc++'s overload-
// resolution fallbacks (`allocator_traits::_S_max_size(const A&, ...)`, picked by passing a
// dummy `0`), are called through a fixed-arity copy, so derivatives of their callers have one
// argument list to mirror.
#pragma once

namespace llvm {
class Module;
}

namespace synthase {

/// Redirects every direct call of a defined variadic function whose body never calls va_start to
/// an internal copy with only the fixed parameters. Returns true when the module changed.
bool dropUnreadVarArgs(llvm::Module &M);

} // namespace synthase
