// Inert memory: local allocations that never hold derivative data need no shadow.
//
// A scratch buffer filled only from constant data (Eigen's packed copy of a constant matrix
// operand, a local table of coefficients, a copy of an enzyme_const input) would otherwise get a
// zeroed shadow like every other allocation, and everything loaded from it would count as varied:
// its adjoints computed and summed into a shadow nobody reads, and every value it is multiplied
// with taped for them. Activity analysis asks this file which allocations it may leave without a
// shadow, and re-checks them against its own result until they agree (see analyzeActivity).
#pragma once
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

namespace synthase {

/// Allocations of one function grouped by the pointer merges (phis, selects) that join them
/// (Eigen's `size <= limit ? alloca : malloc` buffers are one group), each group with the
/// accesses that may write it. A group whose address leaves the function's sight (stored into
/// memory, returned, passed to a function without a body, turned into an integer that is kept)
/// or that merges with any other pointer is not listed.
struct InertCandidates {
  struct Group {
    llvm::SmallVector<llvm::Value *, 2> Roots;             ///< allocas, allocator calls, an argument
    llvm::SmallVector<llvm::StoreInst *, 8> Stores;          ///< stores into the group
    llvm::SmallVector<llvm::MemTransferInst *, 4> Copies;    ///< copies into the group
    llvm::SmallVector<std::pair<llvm::CallBase *, unsigned>, 4> Calls; ///< defined callees given it
    bool Alive = true;
  };
  std::vector<Group> Groups;

  llvm::SmallPtrSet<const llvm::Value *, 16> roots() const;
};

/// The groups of F's allocations in blocks of Live, plus one for ExtraRoot (a pointer argument
/// whose memory the caller treats as inert) when it is not null; that group is last.
InertCandidates findInertCandidates(llvm::Function &F, const llvm::SmallPtrSetImpl<const llvm::BasicBlock *> &Live,
                                    llvm::Argument *ExtraRoot = nullptr);

/// F's allocations that only inactive library code writes (an std::filebuf made with new and
/// deleted through its vtable): no store, copy or differentiated call reaches them. Their
/// virtual calls run the library's members, which carry no derivative.
llvm::SmallPtrSet<const llvm::Value *, 8> libraryObjects(llvm::Function &F,
                                                        const llvm::SmallPtrSetImpl<const llvm::BasicBlock *> &Live);

} // namespace synthase
