// Diagnostics for code Synthase refuses: every message names the function, the instruction and,
// with debug info, the source line, and ends with a hint of what the user can do.
#pragma once
#include "llvm/ADT/Twine.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instruction.h"
#include "llvm/IR/Module.h"

namespace synthase {

/// Emits an error through the LLVMContext, so clang, lld and opt all report it and fail.
void reportError(const llvm::Function *F, const llvm::Instruction *I, const llvm::Twine &Msg,
                 const llvm::Twine &Hint = "");
/// An error about the module as a whole (no single function or instruction to blame).
void reportModuleError(llvm::Module &M, const llvm::Twine &Msg, const llvm::Twine &Hint = "");
void reportWarning(const llvm::Function *F, const llvm::Instruction *I, const llvm::Twine &Msg);

/// Ends the builder's block with a run-time failure: the message on stderr, then abort(). For a
/// case only the running program can tell apart (an unknown function pointer), never a zero.
void emitAbort(llvm::IRBuilder<> &B, llvm::Module &M, const llvm::Twine &Msg);
/// The same failure when Cond (an i1, or a vector of i1 for any lane) holds at run time, as a call
/// of a small internal function: the builder's block goes on, so generators that map blocks one
/// to one while they emit need not split it.
void emitAbortIf(llvm::IRBuilder<> &B, llvm::Module &M, llvm::Value *Cond, const llvm::Twine &Msg);
/// "in function 'f' (file.c:12:3)": where a run-time failure message says it happened.
std::string runTimePlace(const llvm::Function *F, const llvm::Instruction *I);

/// "file.c:12:3" for an instruction with debug info, "" otherwise.
std::string sourceLocation(const llvm::Instruction *I);
/// A type as LLVM prints it; a named struct with its body.
std::string printType(const llvm::Type *T);
/// The instruction printed on one line, trimmed.
std::string printInstruction(const llvm::Value *V);

/// A symbol as users wrote it: C++ names demangled ("model(double, double)"), others unchanged.
std::string displayName(llvm::StringRef Symbol);

/// Number of errors reported so far in this process (used to stop generating after a failure).
unsigned errorCount();

} // namespace synthase
