// Vector reverse mode: the per-lane state of a GradientGen. Lanes are switched by swapping maps
// (constant time), so the generator's code reads one lane's shadows and adjoint slots through the
// same members whatever the width, and width 1 never switches at all.
#include "Reverse/GradientGen.h"

namespace synthase {
namespace gradient {

void GradientGen::swapLane(LaneState &S) {
  std::swap(ShA, S.ShA);
  std::swap(RevArgSh, S.RevArgSh);
  std::swap(AllocOutShadow, S.AllocOutShadow);
  std::swap(ReallocOldSize, S.ReallocOldSize);
  std::swap(RevSh, S.RevSh);
  std::swap(Slots, S.Slots);
  std::swap(DRet, S.DRet);
}

void GradientGen::setLane(unsigned K) {
  if (K == Lane)
    return;
  if (Parked.size() < width())
    Parked.resize(width());
  swapLane(Parked[Lane]); // park the current lane
  swapLane(Parked[K]);    // and take K's state out of its parking place
  Lane = K;
}

} // namespace gradient
} // namespace synthase
