// Internal pieces of the lowering, shared by the plugin, synthase-opt and the bridge library.
#pragma once
#include "CallSite/DiffCall.h"
#include "synthase/Synthase.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstrTypes.h"
#include <vector>

namespace synthase {
class Engine;
/// Every call of a bodiless `__enzyme_autodiff*` / `__enzyme_fwddiff*` function in M.
std::vector<llvm::CallBase *> collectDiffCalls(llvm::Module &M);
/// Lowers all collected call sites with E; returns true if anything changed.
bool lowerDiffCalls(llvm::Module &M, const Options &O, Engine &E);
/// Replaces DC's call by Parts, repacked into the type the call site declares (or its sret buffer).
void deliverResult(DiffCall &DC, llvm::ArrayRef<llvm::Value *> Parts, llvm::IRBuilder<> &B);
/// Declarative autodiff items (function attributes, C annotations) turned into call sites by the
/// bridge; a weak hook so the engine links without the bridge.
bool expandDeclarativeFrontDoor(llvm::Module &M);
} // namespace synthase
