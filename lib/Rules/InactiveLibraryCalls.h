// libstdc++ functions that move no derivative: string, locale, stream and hash-table bookkeeping.
#pragma once
#include "llvm/ADT/StringRef.h"

namespace synthase {

/// True for a mangled libstdc++ name whose function reads and writes only character, integer or
/// bookkeeping data (std::string members, std::locale, ios_base / basic_ios, stream members that
/// format or parse no floating-point value, static-local guards, std::__throw_*).
bool isInactiveLibraryCall(llvm::StringRef Mangled);

} // namespace synthase
