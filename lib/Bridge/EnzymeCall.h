// Call generation in two steps, so a caller holding several items can check them all before it
// changes any IR: prepare (pure, may fail) and emit (cannot fail).
#pragma once
#include "synthase/Bridge.h"
#include "llvm/ADT/SmallVector.h"
#include <string>

namespace synthase::bridge {

/// One operand of the engine call after the function pointer.
struct PlannedOperand {
  enum class Kind { Marker, Value, Stride } K = Kind::Value;
  llvm::StringRef Marker;    ///< Kind::Marker
  llvm::Value *V = nullptr;  ///< Kind::Value; for Kind::Stride the slice length
  uint64_t ElemSize = 0;     ///< Kind::Stride: bytes per element
  uint64_t Constant = 0;     ///< Kind::Value with V == null: an i64 constant (the width)
};

/// A duplicated slice whose shadow must hold at least Factor × primal-length elements.
struct SliceLengthCheck {
  llvm::Value *PrimalLen = nullptr;
  llvm::Value *ShadowLen = nullptr;
  unsigned Factor = 1;
  unsigned Activity = 0; ///< index into the input activities
  unsigned Lane = 0;
};

struct PreparedCall {
  std::string Label;
  std::string EntryName; ///< __enzyme_autodiff<outer> / __enzyme_fwddiff<outer>
  llvm::Function *FnToDiff = nullptr;
  llvm::Type *RetTy = nullptr;
  llvm::SmallVector<PlannedOperand, 16> Operands;
  llvm::SmallVector<SliceLengthCheck, 2> Checks;
};

/// The seed's match_args walk, as a plan: which markers, values and strides the call gets.
llvm::Expected<PreparedCall> prepareEnzymeCall(llvm::Module &M, llvm::Function *FnToDiff,
                                               llvm::StringRef OuterName, llvm::Type *RetTy,
                                               llvm::ArrayRef<llvm::Value *> OuterArgs,
                                               const AutoDiffAttrs &Attrs,
                                               llvm::StringRef Label);

llvm::CallInst *emitEnzymeCall(llvm::IRBuilderBase &B, const PreparedCall &P, llvm::Value *Dest,
                               const CallOptions &Opts);

/// Branches to "message on stderr, abort()" when the shadow is too short; B continues on the
/// passing path.
void emitSliceLengthCheck(llvm::IRBuilderBase &B, const SliceLengthCheck &C,
                          llvm::StringRef Label);

} // namespace synthase::bridge
