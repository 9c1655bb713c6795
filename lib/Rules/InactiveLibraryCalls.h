// libstdc++ functions that move no derivative: string, locale, stream and hash-table bookkeeping.
#pragma once
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstrTypes.h"
#include <optional>
#include "llvm/IR/Type.h"

namespace synthase {

/// True for a mangled libstdc++ name whose function reads and writes only character, integer or
/// bookkeeping data (std::string members, std::locale, ios_base / basic_ios, stream members that
/// format or parse no floating-point value, static-local guards, std::__throw_*).
bool isInactiveLibraryCall(llvm::StringRef Mangled);

/// True for a (mangled) static of Rust's std, core or alloc: it holds no derivative data.
bool isInactiveLibraryGlobal(llvm::StringRef Mangled);

/// `syscall(n, ...)` with a constant n that only reads or writes kernel state, random bytes or a
/// futex word (getrandom, futex, getpid, gettid, sched_yield): what Rust's std inlines for
/// HashMap seeds and locks.
bool isInactiveSyscall(const llvm::CallBase &CB);

/// read(fd, buf, n), pread, pread64, recv and fread(buf, size, n, f) fill a buffer with bytes that
/// carry no derivative: whatever they overwrite loses its tangent/adjoint, so the generators zero
/// the shadow of the bytes the call reports it wrote (never of more), instead of refusing the call.
struct LibraryRead {
  unsigned Buffer;  ///< argument that receives the bytes
  int ItemSize = -1; ///< argument holding the size of one item (fread), or -1: the result counts bytes
  int Count = -1;    ///< argument holding the bytes asked for, when the result is not a count (istream::read)
};
std::optional<LibraryRead> libraryReadOf(llvm::StringRef Name);
/// Bytes written, from the call's result and its arguments as the sweep sees them: 0 on error.
llvm::Value *bytesRead(llvm::IRBuilder<> &B, const LibraryRead &R, llvm::Value *Result,
                       llvm::function_ref<llvm::Value *(unsigned)> Arg);

/// For a stream extraction into a float (`is >> d`, istream::_M_extract<double>): the float type
/// it parses into the memory of argument 1. The parsed value carries no derivative, so the
/// generators zero that memory's shadow in place of differentiating the call. Null otherwise.
llvm::Type *floatParsedByLibraryCall(llvm::LLVMContext &C, llvm::StringRef Mangled);

/// The floats a parsing call writes, as (argument, float type): the stream extraction above, or
/// the C scanf family (`sscanf`, `fscanf`, `scanf` and glibc's `__isoc99_`/`__isoc23_` names) with
/// a constant format, whose `%f`, `%lf`, `%Lf` conversions write a float, double or long double
/// through their argument. Nothing when CB is not such a call (or its format is not constant).
struct ParsedFloat {
  unsigned Arg;
  llvm::Type *Ty;
};
std::optional<llvm::SmallVector<ParsedFloat, 4>> floatsParsedByCall(const llvm::CallBase &CB);

} // namespace synthase
