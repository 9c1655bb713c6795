// Building a generated function from the simplified primal: the new signature (each Dup argument
// followed by its shadows) and a copy of the primal body to extend.
#pragma once
#include "Engine/Engine.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

namespace synthase {

struct ClonedBody {
  llvm::Function *NF = nullptr;
  /// Shadow arguments of NF for each primal argument (empty when the argument is not Dup).
  std::vector<llvm::SmallVector<llvm::Value *, 4>> ArgShadows;
  llvm::Argument *Extra = nullptr; ///< trailing extra arguments begin here (dret, tape)
};

/// Creates `Name` with parameters (primal, shadows...) per argument + ExtraParams, returning RetTy,
/// and copies Src's body into it (VMap maps Src values to the copy). Debug info is kept distinct.
ClonedBody cloneWithShadows(Engine &E, llvm::Function *Src, const Signature &S,
                            llvm::ArrayRef<llvm::Type *> ExtraParams, llvm::Type *RetTy,
                            const llvm::Twine &Name, llvm::ValueToValueMapTy &VMap);

/// Adds Src's parameter attributes that stay true (noalias, nocapture, align...) to the primal
/// parameters and clears everything that the derivative would violate (memory effects, returned).
void sanitizeAttributes(llvm::Function *NF);

/// Emits Acc + V for floats, float vectors and aggregates of them.
llvm::Value *addDerivatives(llvm::IRBuilder<> &B, llvm::Value *Acc, llvm::Value *V);

/// Zero of a type, for derivatives that are known to vanish.
inline llvm::Value *zeroOf(llvm::Type *T) { return llvm::Constant::getNullValue(T); }

} // namespace synthase
