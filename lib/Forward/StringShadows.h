// Forward mode of libstdc++'s out-of-line std::string members on a string that has a shadow (a
// std::string field of a struct that also holds active values). Those members run on the primal
// only, so the primal may move its characters to the heap while the shadow keeps the old buffer;
// the inlined destructor would then free the shadow's inline buffer. Characters carry no
// derivative, so after such a call the shadow string points at the primal's characters: its data
// pointer has no shadow of its own, and frees and byte writes through a shadow that aliases the
// primal are skipped at run time (see the Free and memory-intrinsic rules of Tangent.cpp).
#pragma once
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstrTypes.h"

namespace synthase {

/// After the primal call C (the copy of source call I), for each std::string object argument of
/// a libstdc++ basic_string member with a shadow, stores the primal's data pointer into each
/// lane's shadow string. Shadow(V, l) is lane l's shadow of source value V, or null.
void shareStringCharacters(llvm::CallBase *I, llvm::CallBase *C, llvm::IRBuilder<> &B, unsigned Lanes,
                           llvm::function_ref<llvm::Value *(llvm::Value *, unsigned)> Shadow);

} // namespace synthase
