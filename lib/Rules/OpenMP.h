// The OpenMP runtime (libomp's __kmpc_* entry points and the omp_* API) as differentiated code
// meets it. A parallel region is an outlined function handed to __kmpc_fork_call: the generators
// differentiate that function like any callee and fork its derivative (Forward/ParallelTangent.cpp,
// Reverse/ParallelRegions.cpp). Work-sharing, synchronisation and thread queries are inactive
// calls whose effect the derivative reproduces where it matters (barriers and critical sections
// are mirrored in the reverse sweep). Constructs the engine cannot reverse are refused by name.
#pragma once
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstrTypes.h"

namespace synthase {

/// `__kmpc_fork_call(loc, n, microtask, captured...)`: the parallel region.
bool isForkCall(const llvm::CallBase *CB);
/// The outlined region function of a fork call, or null when it is not a known function.
llvm::Function *forkMicrotask(const llvm::CallBase *CB);
/// Runtime calls that carry no derivative (loop bounds, dispatch, thread queries, barriers,
/// critical sections, single/master, flushes). Reductions never reach the generators: see below.
bool isInactiveOpenMPCall(llvm::StringRef Name);
/// The construct a runtime entry point implements, when derivatives through it are not supported
/// (tasks, taskloop, target offload, ordered, ...); null otherwise.
const char *unsupportedOpenMPConstruct(const llvm::CallBase *CB);
/// Reductions in a region about to be differentiated never take the runtime's tree path, which
/// combines private copies inside libomp where no derivative can follow. Sums take the atomic
/// path: `__kmpc_reduce(_nowait)` answers 2, each thread adds its private copy into the shared
/// variable with an atomic add, whose adjoint is the broadcast of the shared variable's adjoint to
/// every private copy. Other operators (max, min, *) take the combining path (1) inside a critical
/// section on the reduction's lock. `__kmpc_end_reduce` keeps its barrier.
void rewriteOpenMPReductions(llvm::Function &F);
/// clang passes a `firstprivate` scalar (and loop bounds) to the region by value, a double as the
/// i64 of its bits. A derivative cannot follow a value into a forked region, so in F's clone each
/// fork passes every scalar by address instead (a local holding it) to a wrapper of the region
/// that loads it: the local's shadow then carries the tangent in, and the adjoint out.
void captureScalarsByReference(llvm::Function &F);

/// In a reverse sweep, the runtime call that mirrors I, emitted at B: `__kmpc_barrier` again,
/// and a critical section entered at its end and left at its start. Returns true if I needed one.
/// Replay gives an operand's primal value in the reverse sweep.
bool emitOpenMPReverseSync(llvm::IRBuilder<> &B, const llvm::CallBase *I,
                           llvm::function_ref<llvm::Value *(llvm::Value *)> Replay);

/// Reverse mode runs the reverse of critical sections in whatever order threads arrive, so a
/// section may only update shared floats by adding to them (`s += v`, `s -= v`): those reverses
/// commute. Returns the first store or load of a critical section in F that breaks this (a
/// `max`, `*`, or a read of the accumulated value), with Reduction set when the section is a
/// reduction's combining step (see rewriteOpenMPReductions); null when every section is additive.
const llvm::Instruction *orderDependentCriticalUpdate(llvm::Function &F, bool &Reduction);

/// `atomicrmw fadd/fsub` whose old value is unused: the update form of `#pragma omp atomic` and of
/// a reduction's atomic path, which both modes differentiate.
bool isSupportedAtomicUpdate(const llvm::Instruction *I);

} // namespace synthase
