// The order in which AD call sites are lowered when derivatives are nested: a call site inside a
// function that another call site differentiates is lowered first, so the outer derivative reads a
// body that calls generated (hence differentiable) functions, not a bodiless entry point.
#pragma once
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/InstrTypes.h"
#include <vector>

namespace synthase {

/// Calls reordered so that every call C comes after each call D that sits in a function C's
/// target reaches (directly, through callees, or through functions named as operands, such as
/// another AD call's target). \p TargetOf gives a call's differentiated function (null if unknown).
/// A call whose target reaches the call itself (a function that differentiates itself, directly or
/// through callees) has no finite derivative: it goes into \p Cyclic, in its original place.
/// \p Order gets each call's derivative order: 1, or one more than the highest order among the
/// calls its target reaches (forward over reverse is 2).
std::vector<llvm::CallBase *> orderForNesting(llvm::ArrayRef<llvm::CallBase *> Calls,
                                              llvm::function_ref<llvm::Function *(llvm::CallBase *)> TargetOf,
                                              llvm::SmallPtrSetImpl<llvm::CallBase *> &Cyclic,
                                              llvm::DenseMap<llvm::CallBase *, unsigned> &Order);

} // namespace synthase
