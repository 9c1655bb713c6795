// Pops shared by the blocks of one iteration. The reverse of every block pops what it needs, so a
// value that several blocks of a loop body use (Rust's bounds-checked loops re-test one index in
// a chain of blocks) was taped once per block and iteration. When a later block C of the same
// iteration always runs after B (B dominates C, and every path from B that can still return
// reaches C before B's loop goes round again), C's reverse runs before B's every time, with the
// same values: B's pops move to C, where each value is popped once for all such blocks and kept
// in a slot that B's reverse reads.
#include "Reverse/GradientGen.h"

namespace synthase {
namespace gradient {

// Bounds on the search, so that very large functions keep linear compile times.
static constexpr unsigned MaxCandidates = 16, MaxWalk = 256;

/// Whether every path from B that can still return passes through C before it leaves L (or, at
/// the top level, returns) or takes L's back edge. Paths to blocks that cannot return (panics,
/// aborts) never reach the reverse sweep and are ignored.
static bool reachesFirst(BasicBlock *B, BasicBlock *C, const Loop *L, const SmallPtrSetImpl<const BasicBlock *> &Live) {
  SmallVector<BasicBlock *, 16> Work{B};
  SmallPtrSet<BasicBlock *, 32> Seen{B};
  while (!Work.empty()) {
    BasicBlock *X = Work.pop_back_val();
    if (isa<ReturnInst>(X->getTerminator()))
      return false;
    for (BasicBlock *S : successors(X)) {
      if (S == C || !Live.count(S))
        continue;
      // Before the visited check: when B is the header, its back edge leads to B itself.
      if (L && (!L->contains(S) || S == L->getHeader()))
        return false;
      if (!Seen.insert(S).second)
        continue;
      if (Seen.size() > MaxWalk)
        return false;
      Work.push_back(S);
    }
  }
  return true;
}

BasicBlock *GradientGen::sharedPopBlock(BasicBlock *B) {
  static const bool Off = getenv("SYNTHASE_NO_SHARED_POPS") != nullptr; // for comparisons
  if (Off || Sig.Parallel || !SrcDT || !SrcLI || !Live.count(B))
    return nullptr;
  auto [It, New] = SharedPopBlocks.try_emplace(B, nullptr);
  if (!New)
    return It->second;
  DomTreeNode *N = SrcDT->getNode(B);
  if (!N || irreducible())
    return nullptr;
  const Loop *L = SrcLI->getLoopFor(B);
  BasicBlock *Best = nullptr;
  unsigned BestLevel = 0, Tried = 0;
  SmallVector<DomTreeNode *, 16> Work(N->begin(), N->end());
  unsigned Walked = 0;
  while (!Work.empty() && Tried < MaxCandidates && ++Walked < MaxWalk) {
    DomTreeNode *D = Work.pop_back_val();
    BasicBlock *C = D->getBlock();
    // Outside B's loop (its exits) nothing runs in every iteration; a block of an inner loop
    // runs once per inner iteration, but what follows the inner loop may qualify.
    if ((L && !L->contains(C)) || !Live.count(C))
      continue;
    Work.append(D->begin(), D->end());
    if (SrcLI->getLoopFor(C) != L)
      continue;
    ++Tried;
    if (D->getLevel() > BestLevel && reachesFirst(B, C, L, Live)) {
      Best = C;
      BestLevel = D->getLevel();
    }
  }
  SharedPopBlocks[B] = Best;
  return Best;
}

} // namespace gradient
} // namespace synthase
