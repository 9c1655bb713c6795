// One soundness rule for memory, shared by forward and reverse mode. Derivative data (a float that
// carries a tangent or an adjoint, or a pointer whose memory has a shadow) written into memory that
// has no shadow is lost there: whatever reads it back gets no derivative. Rather than return a
// silently partial derivative, both modes refuse such a write unless nothing can read it back.
#pragma once
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instruction.h"
#include "llvm/IR/Instructions.h"
#include <optional>

namespace synthase {

/// True when memory written through Ptr can never be read again in F: Ptr is based on an
/// identified local object (an alloca, a heap allocation, a global) that F neither reads, nor passes
/// to a call, nor lets escape. Arguments are never harmless: the caller reads them.
bool unshadowedWriteIsHarmless(const llvm::Function &F, const llvm::Value *Ptr);

/// True when the memory behind Ptr may hold derivative data: it is based on a pointer that has a
/// shadow and is accessed as floating point somewhere in F, or it is a shadowed argument.
bool mayHoldDerivatives(const llvm::Function &F, const llvm::Value *Ptr,
                        llvm::function_ref<bool(const llvm::Value *)> HasShadow);

/// The error for a write of derivative data (store, memcpy) into memory without a shadow. It names
/// where the memory came from and what to change.
void refuseUnshadowedWrite(const llvm::Function *Fn, const llvm::Instruction *I, const llvm::Value *Ptr,
                           bool IsPointer);

/// The error for an inttoptr that stands for derivative memory (pointerBitsIn) but whose shadow
/// neither mode can derive.
void refuseRebuiltAddress(const llvm::Function *Fn, const llvm::Instruction *I);
/// Walks the integer values V is computed from through arithmetic, casts, phis and selects (at
/// most 64; freezes too). Leaf decides each one: true ends the walk with it, false stops there, nullopt goes on
/// into its operands. Returns the value Leaf accepted, or null; Truncated says the walk gave up.
const llvm::Value *findInIntegerSources(const llvm::Value *V,
                                        llvm::function_ref<std::optional<bool>(const llvm::Value *)> Leaf,
                                        bool *Truncated = nullptr);
/// True when SI writes a field of a local record that never holds an address: every value stored
/// there (and into the fields those values are computed from) is made of constants and integer
/// arithmetic. A record that keeps one address as an integer (hashbrown's table swapping its
/// control pointer as i64) then still takes integer counters beside it.
bool storesIntoAddressFreeField(const llvm::StoreInst *SI);
/// The error for bits read from derivative memory that are used both as an address and as a
/// float (pointerOrFloatBits): which one the slot holds is known only at run time.
void refusePointerOrFloat(const llvm::Function *Fn, const llvm::Instruction *I);

/// A copy's or fill's length made 0 at run time when one of the shadow addresses is null (a
/// shadow loaded from memory a library call filled in the primal only: the data behind it is
/// not differentiated, and a run-time length cannot be redirected to a scratch slot).
llvm::Value *lengthUnlessNullShadow(llvm::IRBuilderBase &B, llvm::Value *Len,
                                    llvm::ArrayRef<llvm::Value *> Shadows);

} // namespace synthase

namespace synthase {
struct ActivityInfo;

/// True when F may store a null shadow into shadow memory: a pointer without a shadow (into
/// constant data) stored into memory that has one, or such memory filled by a copy from memory
/// without a shadow. A shadow pointer loaded back from memory may then be null, and every access
/// through it is guarded at run time (the data behind it is constant: it carries no derivative).
bool mayStoreNullShadows(const llvm::Function &F, llvm::function_ref<bool(const llvm::Value *)> HasShadow);

/// Where a maybe-null shadow comes from: the pointer loaded from memory (or extracted from a
/// loaded vector of pointers) that an address is derived from by GEPs and casts. With
/// ArgsMaybeNull (Signature::ShadowArgsMaybeNull), a pointer argument is such a root too. With
/// HasShadow, a merge (phi, select) with a pointer that has no shadow is Unknown.
struct NullRoot {
  enum Kind { None, Root, Unknown } K = None;
  llvm::Value *V = nullptr;
};
NullRoot nullRootOf(llvm::Value *Ptr, bool ArgsMaybeNull = false,
                    llvm::function_ref<bool(const llvm::Value *)> HasShadow = nullptr);
/// The shadow of an address derived from a maybe-null shadow (a GEP into a constant matrix passed
/// without a shadow), as it leaves the function: stored into memory, passed to a callee or
/// returned. Null stays null there, where a guard further on can only see the pointer itself, not
/// the root it was offset from. RootShadow is the root's shadow; without one, a shadow in the
/// first 64 KiB counts as null.
llvm::Value *keepShadowNull(llvm::IRBuilderBase &B, llvm::Value *Shadow, llvm::Value *RootShadow);
} // namespace synthase

namespace synthase {
/// For `inttoptr` of integer arithmetic on `ptrtoint p` (aligning a pointer by hand, as Eigen's
/// stack buffers and aligned malloc do): p, the one pointer the address is computed from, or null.
/// The shadow of the result is p's shadow moved by the same byte offset.
llvm::Value *intToPtrBase(const llvm::IntToPtrInst *I);
/// Whether `inttoptr` turns a scaled integer into a pointer (`len << 3`, `n * 8`): no address is
/// ever a multiple of another, so the result points into no object and has a null shadow. Rust's
/// debug builds carry an allocation's size in the pointer slot of the failed allocation's result.
bool intToPtrOfScaledInteger(const llvm::IntToPtrInst *I);
/// The shadow of such an `inttoptr` at B, from the shadow of its base. An address that is only
/// offset from the base keeps the same offset from the base's shadow. One that is rounded (an
/// `and` mask: Eigen's handmade_aligned_malloc and aligned stack buffers) is rounded the same way
/// from the shadow base, so the shadow has the alignment the code assumes of the address
/// (AVX-512 code stores to it with 64-byte aligned moves); the shadow block has the primal
/// block's size, so the rounded range fits it too. Primal maps a value of I's function to its copy.
llvm::Value *intToPtrShadow(llvm::IRBuilder<> &B, const llvm::IntToPtrInst *I, llvm::Value *Base,
                            llvm::Value *ShadowBase, llvm::function_ref<llvm::Value *(llvm::Value *)> Primal);
} // namespace synthase

namespace synthase {
struct MemoryLayout;
/// For an integer stored to memory: the pointer whose bits it is (`ptrtoint p` at the pointer's
/// full width), or null. SROA stores a pointer field this way when the same bytes are also used as
/// an integer; the stored bytes are a pointer, so its shadow goes into the shadow memory too.
llvm::Value *storedPointerBits(const llvm::Value *V);
/// For `inttoptr` of an integer loaded from memory at the pointer's full width (InstCombine reads
/// a pointer field as an integer when its bytes are also copied as one): that load. The result
/// is a pointer read from memory, so its shadow is read from the shadow memory.
llvm::LoadInst *loadedPointerBits(const llvm::IntToPtrInst *I);
/// True when an integer load's value becomes a pointer (an inttoptr of it, see loadedPointerBits):
/// its bytes are a pointer, whatever else the memory holds.
bool loadsPointerBits(const llvm::LoadInst *L);
/// The pointer whose address V is computed from by integer arithmetic, casts, phis and selects
/// (`(uintptr_t)&x[i]`, `(uintptr_t)x + 8 * i`, `p | tag`), when Shadowed accepts it; else null.
/// Such an integer stands for derivative memory: kept in memory, it must keep its shadow, and
/// turned back into a pointer, it must get one or be refused.
const llvm::Value *pointerBitsIn(const llvm::Value *V, llvm::function_ref<bool(const llvm::Value *)> Shadowed);
/// Whether integer V, stored at Dest, may carry an address: its arithmetic reaches a `ptrtoint`,
/// a load whose value becomes a pointer, or a load of any other location than Dest (`t[i] =
/// t[i-1] + 8` in a table of addresses). An update in place (`n += 1`, `len = len + k`) and values
/// computed without loads cannot, nor loads of fields the front end typed as integers, nor (with
/// IntoIntegerField: Dest is such a field) loads of other fields of Dest's object. Only those are
/// kept in step in a shadow object: an address copied there would make the shadow alias the primal.
bool mayCarryAddress(const llvm::Value *V, const llvm::Value *Dest, bool IntoIntegerField = false);
/// An integer store into memory that holds addresses as integers (a uintptr_t table) whose
/// value is neither a pointer's bits, a copy of such an integer, nor a constant: an address made
/// by integer arithmetic on another kept address (`t[i] = t[i-1] + 8`). Its shadow cannot follow
/// (refuseRebuiltAddress); the table's shadow would hold garbage.
bool storesRebuiltAddress(const llvm::StoreInst *SI, const MemoryLayout &Dest);

/// Whether the integer SI stores may be stored into the shadow too, keeping a shadow object's
/// count in step with the primal's: the destination holds no address kept as an integer and the
/// value cannot carry one (mayCarryAddress). Both modes ask it of the same stores.
bool mayMirrorInteger(const llvm::StoreInst *SI, const MemoryLayout &Dest);
/// For `inttoptr` of a pointer-width integer loaded from memory and then only combined with
/// constants (`t[i] & ~7`, a tag masked off an address kept in a table): that load, else null.
/// Its shadow cannot be read beside it as loadedPointerBits' can.
const llvm::LoadInst *maskedPointerBits(const llvm::IntToPtrInst *I);
/// `llvm.ptrmask(p, m)` (`__builtin_align_down`, std::align) as `p` plus the byte offset the mask
/// takes off, so that the shadow moves by the same offset as every other address derived from p.
bool expandPointerMasks(llvm::Function &F);
} // namespace synthase
