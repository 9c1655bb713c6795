// MPI calls inside differentiated code. The derivatives of the supported calls live in a small
// runtime (runtime/mpi/SynthaseMPI.c, linked by synthase-cc as libsynthase_mpi.a); the plugin
// registers them for the MPI functions a module calls, as custom derivatives in Enzyme's
// convention, so both generators treat an MPI call like any call with a registered derivative.
#pragma once
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Module.h"
#include <string>

namespace synthase {

/// Adds the registrations for the supported MPI functions M declares (once; not when the user
/// registered a derivative of their own, nor in a module without AD entry points).
void registerMPIDerivatives(llvm::Module &M);

/// Communicator queries, synchronisation and set-up: they move no derivative.
bool isInactiveMPICall(llvm::StringRef Name);

/// The diagnostic for an MPI call that has no derivative (one-sided communication, custom
/// operations, derived datatypes, collectives not covered); false for any other call.
bool explainUnsupportedMPI(const llvm::CallBase *CB, std::string &Msg, std::string &Hint);

/// Compile-time checks of a supported MPI call inside differentiated code Fn (a reduction
/// operation that is a constant other than MPI_SUM/MAX/MIN); false after a diagnostic.
bool checkMPICall(const llvm::Function *Fn, const llvm::CallBase *CB);

} // namespace synthase
