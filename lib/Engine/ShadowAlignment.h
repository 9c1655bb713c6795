// Vector moves in generated code, relaxed to their elements' alignment (ShadowAlignment.cpp).
#pragma once
#include "llvm/IR/Function.h"

namespace synthase {

/// Lowers the alignment of F's vector loads and stores, and of its memory transfers, to what their
/// elements need. Code that peels a loop to a vector boundary tests the primal's address and then
/// claims that alignment for the moves that generation mirrors onto shadows (Eigen's packets on
/// an unaligned Map, `_mm_load_pd` after a `(uintptr_t)p & 15` loop); a shadow the caller passed
/// need not sit at the same offset from that boundary, and an aligned move there faults. Unaligned
/// vector moves cost the same as aligned ones on data that happens to be aligned.
void relaxVectorAlignment(llvm::Function &F);

} // namespace synthase
