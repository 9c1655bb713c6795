// Lowering order for nested derivatives. Lowering an inner call site replaces a bodiless entry
// point by calls of generated functions; the outer derivative must be built after that, from the
// rewritten body, whatever the nesting (forward over reverse, reverse over reverse, third order).
#include "Passes/NestingOrder.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace synthase {

/// Every defined function whose body may end up inside a derivative of F: F, its callees, and any
/// function named as an operand (an AD call's target, a function pointer passed along), transitively.
static void reach(Function *F, SmallPtrSetImpl<Function *> &Seen) {
  SmallVector<Function *, 16> Work{F};
  while (!Work.empty()) {
    Function *G = Work.pop_back_val();
    if (!G || G->isDeclaration() || !Seen.insert(G).second)
      continue;
    for (Instruction &I : instructions(*G))
      for (Value *Op : I.operands())
        if (auto *H = dyn_cast<Function>(Op->stripPointerCasts()))
          Work.push_back(H);
  }
}

std::vector<CallBase *> orderForNesting(ArrayRef<CallBase *> Calls, function_ref<Function *(CallBase *)> TargetOf,
                                        SmallPtrSetImpl<CallBase *> &Cyclic, DenseMap<CallBase *, unsigned> &Order) {
  unsigned N = Calls.size();
  // Deps[i]: calls that must be lowered before call i.
  std::vector<SmallVector<unsigned, 4>> Deps(N);
  bool Any = false;
  for (unsigned i = 0; i < N; ++i) {
    SmallPtrSet<Function *, 16> Reached;
    reach(TargetOf(Calls[i]), Reached);
    if (Reached.count(Calls[i]->getFunction()))
      Cyclic.insert(Calls[i]);
    for (unsigned j = 0; j < N; ++j)
      if (j != i && Reached.count(Calls[j]->getFunction())) {
        Deps[i].push_back(j);
        Any = true;
      }
  }
  std::vector<unsigned> Ord(N, 1);
  if (!Any) {
    for (CallBase *CB : Calls)
      Order[CB] = 1;
    return std::vector<CallBase *>(Calls.begin(), Calls.end());
  }
  std::vector<CallBase *> Out;
  std::vector<bool> Done(N, false);
  auto Take = [&](unsigned i) {
    Done[i] = true;
    Out.push_back(Calls[i]);
    for (unsigned j : Deps[i])
      if (Done[j] && !Cyclic.count(Calls[i]))
        Ord[i] = std::max(Ord[i], Ord[j] + 1);
    Order[Calls[i]] = Ord[i];
  };
  while (Out.size() < N) {
    bool Progress = false;
    for (unsigned i = 0; i < N; ++i) {
      if (Done[i] || any_of(Deps[i], [&](unsigned j) { return !Done[j]; }))
        continue;
      Take(i);
      Progress = true;
    }
    if (Progress)
      continue;
    // A cycle (its calls are in Cyclic and get refused): take the first remaining call as it came.
    for (unsigned i = 0; i < N; ++i)
      if (!Done[i]) {
        Take(i);
        break;
      }
  }
  return Out;
}

} // namespace synthase
