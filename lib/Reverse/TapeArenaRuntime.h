// Pieces shared by the two per-thread tape arenas: the plain one (TapeArena.cpp) and the shadowed
// one that forward-over-reverse derivatives use for their inner tapes (ShadowedTapeArena.cpp).
#pragma once
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

namespace synthase {

/// One definition per program, whichever module brought it (linkonce_odr, in a comdat).
void shareTapeRuntime(llvm::Module &M, llvm::GlobalObject *GO);

/// A linkonce_odr thread-local arena of type T named Name (replacing a declaration a module made
/// to look at it, as the tests do).
llvm::GlobalVariable *tapeArenaGlobal(llvm::Module &M, llvm::StringRef Name, llvm::StructType *T);

/// Creates the body of an arena helper (noinline, nounwind, TapeRuntimeAttr) unless some module
/// pass already gave it one.
llvm::Function *tapeRuntimeHelper(llvm::Module &M, llvm::StringRef Name, llvm::FunctionType *FT,
                                  llvm::function_ref<void(llvm::IRBuilder<> &, llvm::Function *)> Body);

llvm::FunctionCallee tapeFreeFn(llvm::Module &M);

/// At B (which must be followed by nothing in its block): if the flag at RegP is 0, sets it and
/// registers AtExit()(null) as a thread-local destructor; B ends up in the join block.
void emitRegisterThreadExit(llvm::Module &M, llvm::IRBuilder<> &B, llvm::Function *F, llvm::Value *RegP,
                            llvm::function_ref<llvm::Function *()> AtExit);

} // namespace synthase
