// Type deduction for memory that is copied as bytes (memcpy, memmove): which offsets hold
// floating-point values and which hold pointers, read from how the function accesses the objects
// on both sides of the copy. Reverse mode needs it twice: the forward sweep must carry the shadows
// of copied pointers along, and the reverse sweep must move the adjoints of copied floats back, at
// their own widths (a struct {double x; float m;} is not two doubles).
#pragma once
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Value.h"
#include <map>
#include <optional>
#include <vector>

namespace synthase {

struct MemoryLayout {
  /// Byte offset (from the pointer asked about) -> scalar type accessed there: a float type or a
  /// pointer. Only accesses at a constant offset are listed.
  std::map<int64_t, llvm::Type *> Fields;
  bool Complete = true;  ///< every access through the object was at a constant offset
  bool Pointers = false; ///< some access reads or writes a pointer
  /// Some access reads or writes an address kept as an integer (a uintptr_t table): counted in
  /// Pointers too, and told apart for integer stores, which must not put an address there.
  bool AddressIntegers = false;
  llvm::SmallPtrSet<llvm::Type *, 2> Floats; ///< float scalar types accessed, at any offset
  /// What Complete=false leaves open, for bytesHoldNoData: a pointer accessed at an unknown
  /// offset, the object passed to a function with a body (its accesses are not walked), bytes
  /// copied in from memory other than a constant of integers.
  bool PointerAtUnknownOffset = false, SeenInCallee = false, CopiedInto = false;
  /// Some fields come from callees the object is passed to, or from objects copied to or from it
  /// (Rust's iterator adapters, filled and read out of line): they tell which kinds the bytes
  /// hold, but never make the layout known (knownWithin), as a callee may see another member of
  /// a union.
  bool FromCallees = false;
  /// The object reaches a call whose body is not seen (through a pointer, or a declaration): the
  /// callees' views are then not the whole story (std::function's invoker reads its capture).
  bool HiddenUse = false;

  /// Byte ranges [Off, Off+Size) described by a type the IR states (a struct-typed GEP's source
  /// type, an alloca's or a global's type): their fields are known even where no access is seen.
  std::vector<std::pair<int64_t, uint64_t>> Typed;
  /// Offset -> size of the integer fields of those stated types (byte arrays excluded).
  std::map<int64_t, uint64_t> Ints;

  /// Offsets where the accesses (or a stated type and an access) disagree: a pointer and a float,
  /// or two float types, at the same byte. Unions do this: std::function's small-object buffer
  /// is typed as pointers and holds a captured double. Fields keeps the first type seen, this map
  /// the other one.
  std::map<int64_t, llvm::Type *> Alternates;

  /// Offset -> element type of an array indexed at run time from there (`getelementptr T,
  /// obj + Off, i`); null where two element types start at the same offset.
  std::map<int64_t, llvm::Type *> Arrays;
  void addArray(int64_t Off, llvm::Type *T);
  /// The element type of the array the bytes at offset 0 lie in, at an element boundary: the
  /// nearest array start at or before 0, when the constant-offset fields in between agree.
  llvm::Type *arrayElementAtStart(const llvm::DataLayout &DL) const;

  /// Records type T at Off, noting a disagreement with what Off already holds in Alternates.
  void addField(int64_t Off, llvm::Type *T);
  void merge(const MemoryLayout &O);
  /// Some field inside [0, Len) has two kinds (see Alternates), so a copy of those bytes cannot
  /// be told to move a pointer's shadow or a float's adjoint.
  bool ambiguousWithin(const llvm::DataLayout &DL, uint64_t Len) const;
  /// Every float and pointer in [0, Len) is listed in Fields: accesses were all at constant
  /// offsets, or a stated type covers the range.
  bool knownWithin(uint64_t Len) const;
  /// The float types accessed at constant offsets inside [0, Len).
  bool floatsWithin(uint64_t Len) const;
  /// For bytes [0, Len) moved as an integer when the object mixes float widths: the one float type
  /// of the fields overlapping them (null when none do: padding or integers), Mixed when they
  /// have several types or a field sticks out of the range.
  llvm::Type *floatFieldsOverlapping(const llvm::DataLayout &DL, uint64_t Len, bool &Mixed) const;

  /// What the bytes [0, Len) hold, when that is known: some listed field overlaps them, or stated
  /// integer fields cover them. Floats and Pointers above describe the whole object; this tells
  /// an integer moved out of a struct that also holds doubles (its count, a flag) apart.
  struct Kinds {
    llvm::SmallPtrSet<llvm::Type *, 2> Floats;
    bool Pointers = false;
  };
  std::optional<Kinds> kindsWithin(const llvm::DataLayout &DL, uint64_t Len) const;
};

/// The layout of the memory at Ptr as the function accesses it through Ptr's underlying object.
MemoryLayout accessLayout(const llvm::DataLayout &DL, const llvm::Value *Ptr);

/// Settles L's disagreements (Alternates) for a copy out of Src at At: each ambiguous offset
/// takes the type of the last store to those bytes before At, found walking back through At's
/// block and its single predecessors, as long as nothing else in between may write them. A
/// lambda capture stored into std::function's buffer just before the function object is moved
/// is a double there, whatever else the buffer holds elsewhere.
void settleAtCopy(const llvm::DataLayout &DL, MemoryLayout &L, const llvm::Value *Src, const llvm::Instruction *At);

/// Whether the type has a float or pointer anywhere in it (struct fields, array elements, lanes).
bool holdsFloatsOrPointers(llvm::Type *T);

/// Whether the bytes from Ptr to the end of its object hold neither floats nor pointers as far
/// as the function shows: Ptr is at a constant offset in a local variable that is never accessed
/// as a float, whose pointer fields (accessed or stated by its type) all lie before Ptr, that no
/// function with a body sees but inactive library code (std::string's members) and that takes
/// bytes only from constants of integers or from what such library code returns. A copy of
/// run-time length out of it (a std::string's characters moved into a hash-table node that also
/// holds a double) moves no derivative and no pointer. Nor does any integer stored into it come
/// from float memory (float bits moved as i64); where that cannot be settled, the answer is no.
bool bytesHoldNoData(const llvm::DataLayout &DL, const llvm::Value *Ptr);

/// The element type T of a copy of a run-time number of T's: Rust's ptr::copy::<T> and C++'s
/// std::copy address both ends as `getelementptr T, p, i` and move a multiple of sizeof(T) bytes.
/// A B-tree node holds keys, values and child pointers side by side, so its layout mixes kinds,
/// while each of these copies moves one array of them. Null unless an end is such a GEP (T not
/// bytes), both ends agree and the length is a multiple of T's size.
llvm::Type *copiedElementType(const llvm::DataLayout &DL, const llvm::MemTransferInst *MT);

} // namespace synthase

namespace synthase {
/// Float data moved as integers (a memcpy of one element turned into `load i64`/`store i64`,
/// Rust's ptr::copy, swap and sort): for an integer load, the floating-point type its bits hold,
/// deduced from how the memory it is read from and the memory it is stored to are accessed as
/// floats. i64 moves double (or <2 x float>), i32 float, an integer vector the float vector of the
/// same size. With no float access in sight an i64 is taken as a double and an i32 as a float.
/// Null when the widths do not fit (e.g. doubles moved byte by byte).
/// An atomic integer load whose value is only computed with, never stored or reinterpreted (the use
/// and weak counts of shared_ptr): it moves no float or pointer bytes, whatever the memory holds.
bool loadsAtomicCounter(const llvm::LoadInst *L);
llvm::Type *floatTypeOfIntMove(const llvm::DataLayout &DL, const llvm::LoadInst *L);
/// Whether the integer V (an integer load, or phis and selects of such loads) reads bytes that
/// an access of the function or its callers shows to be a float: evidence, where
/// floatTypeOfIntMove may only guess (an i64 with no float access in sight is taken as a double).
bool floatBitsKnown(const llvm::DataLayout &DL, const llvm::Value *V);
/// The layout of the memory an integer load reads and of every place its value is stored to.
MemoryLayout moveLayout(const llvm::DataLayout &DL, const llvm::LoadInst *L);
} // namespace synthase
