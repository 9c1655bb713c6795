// What both modes refuse, worded once: forward and reverse generation decide *when* to refuse,
// these say *what* the user is told.
#pragma once
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Instructions.h"

namespace synthase {

/// The pointer an atomic load, store, read-modify-write or compare-exchange accesses; null for
/// any other instruction.
llvm::Value *atomicPointer(llvm::Instruction *I);

void refuseAtomic(const llvm::Function *Fn, const llvm::Instruction *I);
/// A bodiless callee without a rule (or an indirect call) that derivatives would have to cross.
void refuseUnknownCallee(const llvm::Function *Fn, const llvm::CallBase *CB);

} // namespace synthase
