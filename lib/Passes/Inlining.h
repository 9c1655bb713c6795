// After differentiation: make the generated derivatives and the placeholders that call them
// inlinable (seed 001), and remove what lowering left behind.
#pragma once
#include "synthase/Synthase.h"

namespace llvm {
class Module;
}

namespace synthase {
class Engine;
/// Placeholders carrying `enzyme_marker` lose `noinline` and gain `alwaysinline`; generated
/// functions they call lose `noinline`. Functions are identified by attribute or by the engine's
/// record of what it generated, never by name.
void applyInliningPostPass(llvm::Module &M, Engine &E, const Options &O);
/// Drops `__enzyme_*` entry-point declarations that no call uses any more.
void removeUnusedEntryPoints(llvm::Module &M);
} // namespace synthase
