// What both modes refuse, worded once: forward and reverse generation decide *when* to refuse,
// these say *what* the user is told.
#pragma once
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Instructions.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace synthase {

/// The pointer an atomic load, store, read-modify-write or compare-exchange accesses; null for
/// any other instruction.
llvm::Value *atomicPointer(llvm::Instruction *I);

/// An atomic on an integer that holds no float bits (a reference count such as shared_ptr's, a
/// flag, a counter): the primal performs it and the shadow has nothing to follow, in both modes.
bool atomicOnPlainInteger(llvm::Instruction *I, llvm::function_ref<bool(const llvm::Value *)> HoldsFloatBits);

/// A variadic function whose body reads its variable arguments (the others are called through a
/// fixed-arity copy, Passes/UnreadVarArgs.h).
void refuseVariadic(const llvm::Function *F);
/// When I's function starts threads, says so (its atomics and indirect calls are only symptoms)
/// and returns true.
bool refuseThreads(const llvm::Function *Fn, const llvm::Instruction *I);
/// Checked before a body is differentiated: threads it starts (named before any of their
/// symptoms, counters or indirect calls into the thread runtime, is met) and computed gotos.
bool refuseUnsupportedBody(const llvm::Function *Fn, const llvm::Function *Body);
void refuseAtomic(const llvm::Function *Fn, const llvm::Instruction *I);
/// A bodiless callee without a rule (or an indirect call) that derivatives would have to cross.
void refuseUnknownCallee(const llvm::Function *Fn, const llvm::CallBase *CB);

} // namespace synthase
