// Activity analysis for reverse mode: a float value needs an adjoint only if it is varied (depends
// on an active input) and useful (influences an active output). Pointers are "shadowed" when
// derivative memory stands behind them. Inactive code gets no derivative code at all.
#pragma once
#include "CallSite/DiffCall.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include <optional>
#include <vector>

namespace synthase {
class Engine;

struct ActivityInfo {
  llvm::SmallPtrSet<const llvm::Value *, 32> Shadowed; ///< pointers with a shadow
  llvm::SmallPtrSet<const llvm::Value *, 32> Varied;
  llvm::SmallPtrSet<const llvm::Value *, 32> Useful;
  /// Integer values that carry moved float data (see floatTypeOfIntMove) -> the float type their
  /// adjoint has.
  llvm::DenseMap<const llvm::Value *, llvm::Type *> IntMoves;
  bool isActive(const llvm::Value *V) const { return Varied.count(V) && Useful.count(V); }
  llvm::Type *adjointType(const llvm::Value *V) const {
    auto It = IntMoves.find(V);
    return It == IntMoves.end() ? V->getType() : It->second;
  }
  bool isShadowed(const llvm::Value *V) const { return Shadowed.count(V); }
};

/// Blocks from which a return is reachable. Code on paths that never return (panics, aborts,
/// `unreachable`) carries no derivative: it runs as primal code and is never differentiated into.
llvm::SmallPtrSet<const llvm::BasicBlock *, 32> returningBlocks(const llvm::Function &F);

/// For an integer that becomes float data (the operand of `bitcast int -> float`, or stored
/// into memory that holds floats) and is not itself moved float bits: where a varied float's
/// bits enter the integer arithmetic that computed it, or null. That is a bitcast of a varied
/// float (the fast-inverse-square-root trick), or float bits moved as an integer (IsMovedBits:
/// a double read from memory as uint64_t, then added to). Reinterpreting float bits is not
/// differentiable, while float bits that only reach integer code (a sanitizer's report of the
/// value, a hash, a NaN test) are harmless. Sign-bit masks were already made fneg / fabs
/// (Analysis/SignBitOps.h).
const llvm::Instruction *launderedFloatBits(const llvm::Value *Bits,
                                            llvm::function_ref<bool(const llvm::Value *)> IsVaried,
                                            llvm::function_ref<bool(const llvm::Value *)> IsMovedBits);

/// For an integer that becomes a float (`bitcast int -> float`) and is not moved float bits: a
/// load from derivative memory among its sources whose bits are also an address (turned back
/// into a pointer elsewhere), or null. One slot then holds either a pointer or a float (a Rust
/// `Result<f64, E>` whose error owns a String, after `?`); its float's derivative would be lost.
const llvm::LoadInst *pointerOrFloatBits(const llvm::Value *Bits,
                                         llvm::function_ref<bool(const llvm::Value *)> Shadowed);

/// The mask of a shufflevector on integers that carry moved floats of element type FloatElt,
/// restated in FloatElt lanes, or nothing when the mask splits a float (SSE2's
/// `_mm_shuffle_epi32` on doubles moves pairs of i32 lanes: Eigen's GEMM kernel broadcasts a
/// double that way). Lanes wider than the float move several whole floats at once.
std::optional<llvm::SmallVector<int, 16>> intMoveShuffleMask(const llvm::ShuffleVectorInst *SV,
                                                             llvm::Type *FloatElt);

/// Computes activity of F's values given argument activities and whether the return is active.
/// With InertMemory (reverse mode), allocations that only ever hold data without derivatives
/// get no shadow (Analysis/InertMemory.h); forward mode gives every allocation its tangent memory.
ActivityInfo analyzeActivity(Engine &E, llvm::Function &F, const std::vector<ArgKind> &Acts,
                             bool RetActive, bool InertMemory = false);

} // namespace synthase
