// Struct copies as typed moves. Clang copies structs with memcpy; once the clone is simplified the
// types that told which bytes are pointers and which are floats (struct-typed GEPs, alloca types)
// are gone. So before simplification, a constant-size memcpy whose layout the IR states is
// rewritten as one typed load and store per float or pointer field; the bytes between them (ints,
// padding) stay a smaller memcpy marked as holding neither, which AD then leaves alone.
#pragma once
#include "llvm/IR/Function.h"
#include "llvm/IR/IntrinsicInst.h"

namespace synthase {

/// Rewrites F's typed struct copies as described above.
void expandTypedCopies(llvm::Function &F);

/// Marks F's loads of integer struct members through member GEPs (`q->id = p->id` beside a
/// double) as moving no derivative data, and its stores to such members as integer-field stores
/// (storesIntegerField), before simplification turns those GEPs into byte offsets.
void markIntegerMembers(llvm::Function &F);

/// Whether S writes an integer field: a struct member the front end typed as an integer (marked
/// by markIntegerMembers) or a store whose type-based alias tag names an integer type.
bool storesIntegerField(const llvm::StoreInst *S);

/// Whether P addresses an integer field of a record whose type tells pointers from integers: a
/// constant byte offset into an element of a struct-typed GEP (`&v[i]` then `+ 16`, a Rust
/// `Vec`'s length beside its data pointer) where the struct's scalar is an integer of Bytes bytes
/// and another of its scalars is a pointer. Not through unions or integer arrays (an enum's
/// payload, whose bytes may hold another variant's pointer).
bool typedIntegerField(const llvm::Value *P, uint64_t Bytes);

/// Whether the front end's type-based alias tag says L reads an integer type (`int`, `long`, ...;
/// not a character type): clang's evidence, at -O1 and above, that the bytes are not a float's.
bool tbaaReadsInteger(const llvm::LoadInst *L);

/// True for a copy expandTypedCopies made of bytes that hold no float and no pointer.
bool copiesNoDerivativeData(const llvm::MemIntrinsic *MI);
/// True for an integer load or store expandTypedCopies made of such bytes (a small gap), or a
/// load markIntegerMembers marked.
bool movesNoDerivativeData(const llvm::Instruction *I);

} // namespace synthase
