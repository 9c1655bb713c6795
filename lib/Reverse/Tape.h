// The tape: one LIFO byte stack per gradient evaluation, shared by a function and every callee's
// augmented forward / reverse pair. The forward sweep pushes at the end of each block what that
// block's reverse needs; the reverse sweep pops it at the start of the block's reverse, so the
// stack stays balanced whatever the control flow, loops or recursion.
#pragma once
#include "Engine/Engine.h"

namespace synthase {

/// Bytes of the tape that live in the caller's frame: the whole tape when its size is known to
/// fit, otherwise the start while the thread's arena holds no buffer (the first call, a nested
/// call). Small gradients never touch the heap.
constexpr uint64_t InlineTapeBytes = 512;

/// Metadata on the realloc and memcpy that grow a tape. A gradient that is differentiated again
/// (rev over rev) sees them as copies of raw bytes, pointers (inner tapes' blocks) and floats
/// mixed; the marked ones are known to copy a stack whose source is never touched again, so
/// their shadows move as bytes (see augMemTransfer, reverseMemTransfer, the realloc rules).
constexpr const char *TapeGrowMD = "synthase.tape.grow";

/// Metadata on the stores that push values onto a tape. A gradient differentiated again sees its
/// shadow blocks' addresses go there and come back in its own reverse sweep, which frees them:
/// they do not outlive the call (allocationMayOutlive).
constexpr const char *TapePushMD = "synthase.tape.push";

/// The user-visible function that frees the calling thread's cached tape buffer early.
constexpr const char *TapeReleaseName = "synthase_release_tape";

/// A tape buffer taken from the thread's arena for one top-level call (TapeArena.cpp).
struct TapeLease {
  llvm::Value *Arena = nullptr;    ///< this thread's arena
  llvm::Value *TookHeap = nullptr; ///< i1: the arena held a buffer, and this call took it
  llvm::Value *Base = nullptr, *Cap = nullptr; ///< the tape's starting buffer and capacity
};

/// Takes the thread's cached buffer at B (or InlineBuf when there is none) and leaves the arena
/// empty while the call runs. The buffer comes from a `noalias` helper, so alias analysis knows
/// the tape is disjoint from the user's memory, as it knew for the frame buffer and realloc.
TapeLease emitTakeTapeBuffer(llvm::Module &M, llvm::IRBuilder<> &B, llvm::Value *InlineBuf);
/// Gives the tape's buffer back before `Before` (which ends up in a new block). The common case
/// is inline: two stores; a nested call's buffer or a first heap buffer goes through a helper.
void emitGiveBackTapeBuffer(Engine &E, llvm::Instruction *Before, llvm::Value *Tape, const TapeLease &L);
/// A panic or exception that escapes the sweeps must not take the leased buffer with it: turns
/// the calls that may unwind into invokes of a cleanup pad that gives the buffer back and then
/// continues to where the entry point would have unwound (its landing pad, or the caller). Returns
/// false, changing nothing, when the function has no way to unwind (no personality anywhere).
/// The calls in Calls are replaced by their invokes.
bool emitGiveBackOnUnwind(Engine &E, llvm::CallBase *Entry, llvm::MutableArrayRef<llvm::CallBase *> Calls,
                          llvm::Value *Tape, const TapeLease &L);
/// Whether the pair (or a callee's pair) pushes or pops anything; if not, the call site keeps the
/// frame tape and no arena code, so a tape-free gradient stays free of any tape cost.
bool sweepsUseTape(Engine &E, const GradientPair &GP);
/// Defines `synthase_release_tape` when M declares it; returns true if it did.
bool defineTapeRelease(llvm::Module &M);

/// The program-wide tape high-water mark (bytes) that -synthase-tape-stats maintains.
constexpr const char *TapePeakName = "__synthase_tape_peak_v1";
/// With -synthase-tape-stats, records the tape's size at B (right after the augmented sweep) in
/// the high-water mark; otherwise emits nothing (TapeStats.cpp).
void emitTapeStats(llvm::Module &M, llvm::IRBuilder<> &B, llvm::Value *Tape);

/// With -synthase-tape-report, prints what each block of the augmented sweep Aug pushes.
void reportTapePushes(const llvm::Function &Aug,
                      llvm::ArrayRef<std::pair<llvm::BasicBlock *, llvm::SmallVector<llvm::Value *, 8>>> Pushes);

/// Marks the arena's helper functions: a clone made for differentiation calls them, never
/// inlines them.
constexpr const char *TapeRuntimeAttr = "synthase-tape-runtime";
/// For a clone that is about to be differentiated: a lowered reverse call site inside it (nested
/// AD) gets a private, empty arena and frees its grown tape at the end, as if no arena existed.
/// The derivative then never sees the thread's cached buffer, which has no shadow: the inner
/// call's tape starts in its frame buffer and is shadowed like any other memory of the function.
void privatizeTapeArena(llvm::Function &F);
/// For a clone that is about to be differentiated, before anything else looks at its tape code:
/// with Shadowed (the clone a width-1 forward derivative reads), each lowered reverse call site
/// takes and gives back its tape through the thread's shadowed arena, a primal and shadow buffer
/// pair kept from one call to the next (ShadowedTapeArena.cpp); otherwise privatizeTapeArena.
/// The shadowed arena's own sites (a forward-over-reverse derivative inside F) are privatized in
/// every case. Returns whether F had any tape arena code (else its clone serves either way).
bool prepareTapeArenas(llvm::Function &F, bool Shadowed);
/// The shadowed arena's take: its result is the tape buffer, which has a shadow.
bool isShadowedTapeTake(const llvm::Function *F);
/// Forward mode of a call of a shadowed arena helper, Primal being the call in the derivative:
/// a take's tangent (returned) is the shadow buffer taken with it; a put of a buffer whose
/// shadow is BufShadow first hands the shadow over. Other helpers have no tangent (null).
llvm::Value *emitShadowedTapeTangent(llvm::CallBase *Primal, llvm::Value *BufShadow);
/// Frees this thread's shadowed pair (synthase_release_tape).
void emitShadowedTapeRelease(llvm::Module &M, llvm::IRBuilder<> &B);

/// Bytes a value of T occupies on the tape (its alloc size rounded up to 8).
uint64_t tapeSlotSize(const llvm::DataLayout &DL, llvm::Type *T);

/// Emits every block's pushes. Inside an innermost loop whose trip count is known on entry (and
/// that calls nothing that pushes), space for all its iterations is reserved once in the
/// preheader and the pushes in the loop go without a capacity check.
void emitAllTapePushes(Engine &E, llvm::Function &Aug, llvm::Value *Tape,
                       llvm::ArrayRef<std::pair<llvm::BasicBlock *, llvm::SmallVector<llvm::Value *, 8>>> Pushes);

/// Emits a push of V before `Before` (which ends up in a new block if the tape must grow).
void emitTapePush(Engine &E, llvm::Instruction *Before, llvm::Value *Tape, llvm::Value *V);

/// Keeps the tape's base, top and capacity (behind the pointer argument Tape) in locals of F,
/// written back before calls that take the tape and before returning (TapeFields.cpp). Returns
/// false, changing nothing, when the tape's address is used in any other way.
bool promoteTapeFields(llvm::Function &F, llvm::Value *Tape);

/// Emits a pop of a T at B's insertion point.
llvm::Value *emitTapePop(Engine &E, llvm::IRBuilder<> &B, llvm::Value *Tape, llvm::Type *T);

/// A reverse sweep's view of its tape: the top and base in locals (promoted to SSA), read from
/// the tape at the sweep's entry, so that a pop is a subtraction and a load, with no store of
/// the top. Only callees' reverse sweeps (calls that take the tape) see the tape in between:
/// syncTapeCursor writes the top back before them and reads both again after.
struct TapeCursor {
  llvm::AllocaInst *Top = nullptr, *Base = nullptr;
};
/// Reads the tape's top and base into new locals at EB (the sweep's entry block).
TapeCursor emitTapeCursor(Engine &E, llvm::IRBuilder<> &EB, llvm::Value *Tape);
/// Emits a pop of a T at B's insertion point, through the cursor.
llvm::Value *emitTapePop(Engine &E, llvm::IRBuilder<> &B, const TapeCursor &Cur, llvm::Type *T);
/// Once the sweep is complete: the top goes back to the tape before every call that may use the
/// tape and before every return, and the cursor is read again after each such call.
void syncTapeCursor(Engine &E, llvm::Function &Rev, llvm::Value *Tape, const TapeCursor &Cur);

} // namespace synthase
