// Calls whose derivative is a small dense Jacobian between the float "leaves" of their arguments
// and of their result: complex arithmetic and the C99 complex functions (a complex double is two
// double leaves, a complex float one <2 x float> with two), vector reductions, and x86 target
// intrinsics on float vectors. Unlike the table in Rules.cpp, an entry may mix operands (a
// reduction reads every lane, cpow's result depends on both of its complex operands), so a rule
// fills a matrix J[out leaf][in leaf] instead of one partial per operand. Forward mode forms
// ẏ = J·ẋ, reverse mode x̄ += Jᵀ·ȳ, both from the same entries.
#pragma once
#include "Rules/Rules.h"
#include "llvm/IR/InstrTypes.h"

namespace synthase {

/// What a Jacobian rule sees. x(i) and y(k) are primal leaves, fetched on first use so that the
/// reverse sweep tapes only what a rule reads.
struct JacobianCtx {
  llvm::IRBuilder<> &B;
  const llvm::CallBase *CB;
  PrimalFn P;
  llvm::Type *T = nullptr; ///< the scalar float type of the leaves
  unsigned NIn = 0, NOut = 0;
  /// J[o][i]; null is an exact zero (no code is emitted for it).
  llvm::SmallVector<llvm::SmallVector<llvm::Value *, 8>, 8> J;

  llvm::Value *x(unsigned i);
  llvm::Value *y(unsigned k);
  llvm::Value *c(double V) { return llvm::ConstantFP::get(T, V); }
  void set(unsigned o, unsigned i, llvm::Value *V) { J[o][i] = V; }
  /// f holomorphic, f'(z) = U + iV, z the input leaves (In, In+1), f the output leaves (Out, Out+1).
  void holomorphic(unsigned Out, unsigned In, llvm::Value *U, llvm::Value *V);

  // Leaf bookkeeping, filled by the generic code.
  struct Leaf {
    unsigned Arg;    ///< call argument (inputs only)
    int Index;       ///< vector lane or struct field, -1 for a scalar
    bool Vector;
  };
  llvm::SmallVector<Leaf, 16> In, Out;
  llvm::SmallVector<llvm::Value *, 16> XCache, YCache;
  llvm::Value *YAgg = nullptr;
};

using JacobianFn = void (*)(JacobianCtx &);

/// The families, each in its own file; null when the call is not one of theirs.
JacobianFn complexJacobian(const llvm::CallBase *CB);
JacobianFn complexInverseJacobian(const llvm::CallBase *CB);
JacobianFn reductionJacobian(const llvm::CallBase *CB);
JacobianFn targetJacobian(const llvm::CallBase *CB);

/// Before differentiation: calls of complex functions with operands in memory (long double
/// _Complex on x86-64) become calls with the operands' parts as values (ComplexByval.cpp).
void unpackComplexByvalCalls(llvm::Function &F);

/// True when CB has a Jacobian rule (and its arguments and result have float leaves the rule
/// understands).
bool hasJacobianRule(const llvm::CallBase *CB);

/// x86 intrinsics whose result carries no derivative (comparisons, rounding, sign masks, tests).
bool isInactiveTargetIntrinsic(const llvm::CallBase *CB);

/// For a call with float data and no rule: a specific reason and hint (an unrefined rsqrt, an x86
/// intrinsic without a rule); false when there is nothing more specific than "no rule".
bool explainMissingCallRule(const llvm::CallBase *CB, std::string &Msg, std::string &Hint);

/// Forward mode: the tangent of CB's result in each of W lanes. ArgTangent(a, l) is lane l of
/// argument a's tangent, or null when the argument has none.
llvm::SmallVector<llvm::Value *, 4>
jacobianTangents(const llvm::CallBase *CB, llvm::IRBuilder<> &B, PrimalFn Primal, unsigned W,
                 llvm::function_ref<llvm::Value *(unsigned, unsigned)> ArgTangent);

/// Reverse mode: Accumulate(a, d) receives the adjoint contribution for each argument a with
/// Wants(a), given the result's adjoint DRes.
void jacobianAdjoints(const llvm::CallBase *CB, llvm::IRBuilder<> &B, PrimalFn Primal, llvm::Value *DRes,
                      llvm::function_ref<bool(unsigned)> Wants,
                      llvm::function_ref<void(unsigned, llvm::Value *)> Accumulate);

} // namespace synthase
