// Which locals a registered reverse function may read (see the header).
#include "Reverse/CustomArgumentMemory.h"
#include "Rules/CustomDerivatives.h"
#include "Rules/NodeLinks.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace synthase {

namespace {

struct Reach {
  DenseMap<std::pair<const Function *, unsigned>, bool> Params;

  bool parameter(const Function *F, unsigned K) {
    auto [It, New] = Params.try_emplace({F, K}, false); // a cycle answers "no" until proven
    if (!New)
      return It->second;
    bool R = address(F->getArg(K));
    Params[{F, K}] = R;
    return R;
  }

  bool address(const Value *Root) {
    SmallVector<const Value *, 16> Work{Root};
    SmallPtrSet<const Value *, 16> Seen{Root};
    while (!Work.empty()) {
      const Value *V = Work.pop_back_val();
      for (const Use &U : V->uses()) {
        const User *Us = U.getUser();
        if (isa<GetElementPtrInst>(Us) || isa<CastInst>(Us) || isa<PHINode>(Us) || isa<SelectInst>(Us)) {
          if (Seen.insert(Us).second)
            Work.push_back(Us);
          continue;
        }
        auto *CB = dyn_cast<CallBase>(Us);
        if (!CB || isa<IntrinsicInst>(CB) || !CB->isArgOperand(&U))
          continue;
        const Function *G = CB->getCalledFunction();
        if (!G)
          continue;
        if (hasCustomReverse(G) && !isNodeLinkHelper(G)) // the links' reverse reads nothing
          return true;
        unsigned K = CB->getArgOperandNo(&U);
        if (!G->isDeclaration() && K < G->arg_size() && parameter(G, K))
          return true;
      }
    }
    return false;
  }
};

} // namespace

bool reachesCustomReverse(const AllocaInst *AI) { return Reach().address(AI); }

} // namespace synthase
