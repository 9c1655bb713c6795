// The engine's view of one `__enzyme_autodiff*` / `__enzyme_fwddiff*` call site, parsed from either
// convention: C's marker globals (`load i32 @enzyme_dup`) or rustc's metadata markers
// (`metadata !"enzyme_dup"`). Both lower to the same DiffCall.
#pragma once
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstrTypes.h"
#include <optional>
#include <string>

namespace synthase {

enum class DiffMode { Forward, Reverse };

/// Activity of one IR-level argument of the function being differentiated.
enum class ArgKind {
  Const,     ///< not differentiated
  Out,       ///< reverse mode: active scalar whose adjoint is returned
  Dup,       ///< primal + shadow (tangent in forward mode, adjoint accumulator in reverse)
  DupNoNeed, ///< like Dup, but the primal result behind the pointer is not needed
};

const char *argKindName(ArgKind K);

struct ArgSpec {
  ArgKind Kind = ArgKind::Const;
  llvm::Value *Primal = nullptr;
  /// One shadow per lane of the vector width (for enzyme_dupv, the strided slices of one buffer).
  llvm::SmallVector<llvm::Value *, 4> Shadows;
  llvm::Value *StrideBytes = nullptr; ///< enzyme_dupv / enzyme_dupnoneedv only
};

struct DiffCall {
  llvm::CallBase *Call = nullptr;
  DiffMode Mode = DiffMode::Reverse;
  llvm::Function *Fn = nullptr;
  unsigned Width = 1;
  bool ReturnPrimal = false;
  /// False after enzyme_const_return: the return carries no derivative. Forward mode then does
  /// not return its tangent; reverse mode seeds the return adjoint with 0.
  bool ReturnDerivative = true;
  llvm::SmallVector<ArgSpec, 8> Args;
  /// Reverse mode: explicit seed of an active return, of the return type (a trailing float, or a
  /// value of the returned struct type); default 1.0 when the return has a single float field.
  llvm::Value *DRet = nullptr;
  /// Vector reverse mode (Width > 1): one seed per lane, when passed; default 1 in every lane.
  llvm::SmallVector<llvm::Value *, 4> DRetLanes;
  llvm::Value *SRet = nullptr; ///< where the C ABI wants a large struct result written
  /// `enzyme_context, ctx`: the shadow set of globals (0: the context-free one), see
  /// Passes/GlobalShadowApi.h.
  unsigned ShadowSet = 0;
  /// enzyme_runtime_activity: a duplicated pointer passed with itself as shadow is constant.
  bool RuntimeActivity = false;

  /// The generated functions' arguments: each primal followed by its shadows (one per lane).
  llvm::SmallVector<llvm::Value *, 16> primalsAndShadows() const {
    llvm::SmallVector<llvm::Value *, 16> Out;
    for (const ArgSpec &A : Args) {
      Out.push_back(A.Primal);
      Out.append(A.Shadows.begin(), A.Shadows.end());
    }
    return Out;
  }
};

/// True for the name of an AD entry point however it was declared: `__enzyme_autodiff`, with a
/// suffix (`__enzyme_autodiff2`, `__enzyme_autodiff_square`), or C++-mangled / a template instance.
std::optional<DiffMode> entryPointMode(llvm::StringRef Name);

/// The marker an operand stands for ("enzyme_dup", ...), or "" when it is an ordinary argument.
llvm::StringRef markerName(const llvm::Value *V);

/// The function being differentiated, looking through casts; null if it is not a known function.
llvm::Function *differentiatedFunction(llvm::Value *V);

/// V itself, or, when V loads a local variable (-O0 spills function pointers and contexts to
/// one) that is assigned a single value and does not escape, that value; null when the variable
/// may hold several values.
llvm::Value *throughSpilledLocal(llvm::Value *V);

/// Floating-point scalars in T: struct fields, array and vector elements, recursively.
unsigned floatLeafCount(llvm::Type *T);

/// Converts an operand to the parameter type the callee expects, undoing C's default argument
/// promotions; null when no conversion exists.
llvm::Value *convertTo(llvm::IRBuilder<> &B, llvm::Value *V, llvm::Type *To);

/// Lowers every `__enzyme_batch*` call of M (Passes/Batch.cpp); true if anything changed.
bool lowerBatchCalls(llvm::Module &M);

/// Parses a call site. On malformed input emits a diagnostic and returns std::nullopt.
/// Casts that C's default argument promotions require (double→float, i32→i8) are inserted before
/// the call.
std::optional<DiffCall> parseDiffCall(llvm::CallBase *CB, DiffMode Mode);

} // namespace synthase
