// libstdc++ functions that move no derivative: string, locale, stream and hash-table bookkeeping.
#pragma once
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/Type.h"

namespace synthase {

/// True for a mangled libstdc++ name whose function reads and writes only character, integer or
/// bookkeeping data (std::string members, std::locale, ios_base / basic_ios, stream members that
/// format or parse no floating-point value, static-local guards, std::__throw_*).
bool isInactiveLibraryCall(llvm::StringRef Mangled);

/// For a stream extraction into a float (`is >> d`, istream::_M_extract<double>): the float type
/// it parses into the memory of argument 1. The parsed value carries no derivative, so the
/// generators zero that memory's shadow in place of differentiating the call. Null otherwise.
llvm::Type *floatParsedByLibraryCall(llvm::LLVMContext &C, llvm::StringRef Mangled);

} // namespace synthase
