// Differentiate optimized IR: before any derivative is generated, the function is cloned, its
// callees inlined where that is possible, and the clone simplified (SROA, mem2reg, instcombine,
// simplifycfg) even at -O0, with a single return block.
#pragma once
#include "llvm/IR/Function.h"

namespace synthase {

class Simplifier {
public:
  Simplifier();
  ~Simplifier();
  /// The pre-AD pipeline on a clone: SROA, EarlyCSE, InstCombine, SimplifyCFG, one exit.
  void simplifyPrimal(llvm::Function &F);
  /// The post-AD cleanup: promote adjoint slots, fold, simplify control flow.
  void simplifyGenerated(llvm::Function &F);

private:
  struct Impl;
  Impl *P;
};

/// String attribute of a clone: the name of the function it was made from. Callers call that
/// function, so analyses that look at what callers pass (MemoryLayout) start from it.
constexpr const char *PrimalOfAttr = "synthase-primal-of";

/// Clones F as an internal function, inlines eligible callees into it and simplifies it.
/// ShadowedTapes: nested reverse call sites use the shadowed tape arena (prepareTapeArenas);
/// HadTapeArenas, if given, receives whether the clone has any tape arena code at all.
llvm::Function *makeDifferentiableClone(llvm::Function &F, Simplifier &S, bool ShadowedTapes = false,
                                        bool *HadTapeArenas = nullptr);

} // namespace synthase
