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
/// loaded vector of pointers) that an address is derived from by GEPs and casts.
struct NullRoot {
  enum Kind { None, Root, Unknown } K = None;
  llvm::Value *V = nullptr;
};
NullRoot nullRootOf(llvm::Value *Ptr);
} // namespace synthase

namespace synthase {
/// For `inttoptr` of integer arithmetic on `ptrtoint p` (aligning a pointer by hand, as Eigen's
/// stack buffers and aligned malloc do): p, the one pointer the address is computed from, or null.
/// The shadow of the result is p's shadow moved by the same byte offset.
llvm::Value *intToPtrBase(const llvm::IntToPtrInst *I);
} // namespace synthase
