// Vector lanes the primal leaves undefined, given values before differentiation. SSE code keeps
// scalars in one lane of a vector (`insertelement poison, x, 0`, a shuffle with poison mask
// entries): the primal never reads the other lane, but the reverse sweep multiplies whole
// vectors lane by lane, so the adjoint of `a * b` takes `0 * poison` in that lane, and the
// post-AD optimizer may then fold the whole gradient away (Eigen's quaternion product gave a
// zero gradient at -O1 and -O2, right at -O0). Poison lanes of floating-point vectors become
// zeros and poison shuffle indices pick a defined lane: the same values wherever the primal
// reads them.
#pragma once
#include "llvm/IR/Function.h"

namespace synthase {

void defineVectorLanes(llvm::Function &F);

} // namespace synthase
