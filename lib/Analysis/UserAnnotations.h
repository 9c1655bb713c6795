// What users tell the engine about their own code, in Enzyme's conventions: functions and globals
// that carry no derivative, and functions that behave like a function of the rule table.
//
// Every source form is read once per module into the IR form Enzyme uses, which is also what
// IR from other tools carries, and the engine reads only that form:
//   inactive function      string attribute "enzyme_inactive" (+ "enzyme_inactive_noblock")
//   inactive global        metadata !enzyme_inactive on the GlobalVariable
//   function-like          string attribute "enzyme_math"="log1p"
//   nofree                 LLVM's nofree attribute
//   user-named shadow      metadata !enzyme_shadow !{ptr @g_shadow} on the GlobalVariable
// Sources: the registration globals `__enzyme_inactivefn*`, `__enzyme_inactivenoblockfn*`,
// `__enzyme_inactive_global*`, `__enzyme_function_like*` and `__enzyme_nofree*`, and the
// `annotate` strings Synthase's clang plugin (lib/Clang/Attributes.cpp) and Enzyme's emit into
// @llvm.global.annotations.
#pragma once
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"

namespace synthase {

inline constexpr const char *AttrInactive = "enzyme_inactive";
inline constexpr const char *AttrInactiveNoblock = "enzyme_inactive_noblock";
inline constexpr const char *AttrFunctionLike = "enzyme_math";
inline constexpr const char *MDInactiveGlobal = "enzyme_inactive";
inline constexpr const char *MDShadowGlobal = "enzyme_shadow";

/// Calls of F run once, in the forward sweep, and carry no derivative: the result is inactive
/// and F's writes do not touch shadows.
inline bool isInactiveFunction(const llvm::Function *F) {
  return F && (F->hasFnAttribute(AttrInactive) || F->hasFnAttribute(AttrInactiveNoblock));
}

/// G has no shadow; what is stored into it is not derivative data.
inline bool isInactiveGlobal(const llvm::GlobalVariable *G) {
  return G && G->hasMetadata(MDInactiveGlobal);
}

/// Reads every registration and annotation of M into the IR form above. Malformed entries and
/// unknown function-like names are compile-time errors naming the entry.
void applyUserAnnotations(llvm::Module &M);

} // namespace synthase
