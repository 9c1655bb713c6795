// Whether a block allocated in a function can still be reached after the function returns: its
// address is returned, stored where the caller can see it (argument or global memory), or handed
// to a callee that may keep it. Reverse mode frees the shadow of a block when the reverse sweep
// passes the allocation; a block that outlives the call keeps its shadow, which the caller
// reaches through the shadow of wherever the address was stored (a cached layer activation, a
// Vec grown inside the function) and frees as it frees the block.
#pragma once
#include "llvm/IR/InstrTypes.h"

namespace synthase {

/// Alloc is a call of the allocator table (Alloc or Realloc role). Conservative: true unless
/// every way the address leaves the block's own value flow is known to stay in the function.
bool allocationMayOutlive(const llvm::CallBase *Alloc);

} // namespace synthase
