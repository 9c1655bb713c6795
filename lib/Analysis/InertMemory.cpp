#include "Analysis/InertMemory.h"
#include "Analysis/UnshadowedMemory.h"
#include "Analysis/UserAnnotations.h"
#include "Engine/Engine.h"
#include "Engine/FunctionShadows.h"
#include "Rules/Allocators.h"
#include "Rules/CustomDerivatives.h"
#include "Rules/Rules.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include <numeric>

using namespace llvm;

namespace synthase {

SmallPtrSet<const Value *, 16> InertCandidates::roots() const {
  SmallPtrSet<const Value *, 16> S;
  for (const Group &G : Groups)
    if (G.Alive)
      for (Value *R : G.Roots)
        S.insert(R);
  return S;
}

namespace {
// Walks the pointers derived from each root and sorts their uses into reads, writes to check,
// and escapes.
struct Walk {
  const SmallPtrSetImpl<const BasicBlock *> &Live;
  std::vector<unsigned> Parent;
  std::vector<bool> Escapes;
  /// The group's memory holds addresses of its own members (a local String or Vec header: the
  /// buffer's pointer stored into the record on the stack). Loads from it then yield members too.
  std::vector<bool> HoldsOwn;
  DenseMap<Value *, unsigned> Owner;
  SmallVector<Value *, 64> Work;
  SmallVector<std::pair<StoreInst *, unsigned>, 16> Stores;
  SmallVector<std::pair<MemTransferInst *, unsigned>, 8> Copies;
  SmallVector<std::tuple<CallBase *, unsigned, unsigned>, 8> Calls;
  SmallVector<Instruction *, 8> Merges;
  SmallVector<std::pair<CallBase *, unsigned>, 4> Virtuals;
  SmallVector<std::pair<StoreInst *, unsigned>, 8> AddressStores; ///< a member's address stored
  SmallVector<std::pair<LoadInst *, unsigned>, 16> Loads;         ///< pointer-sized loads
  SmallVector<unsigned, 4> CopiedFrom;                            ///< groups a memcpy reads

  explicit Walk(const SmallPtrSetImpl<const BasicBlock *> &L) : Live(L) {}

  unsigned find(unsigned G) {
    while (Parent[G] != G)
      G = Parent[G] = Parent[Parent[G]];
    return G;
  }
  void unite(unsigned A, unsigned B) {
    A = find(A), B = find(B);
    if (A != B) {
      Parent[B] = A;
      Escapes[A] = Escapes[A] || Escapes[B];
      HoldsOwn[A] = HoldsOwn[A] || HoldsOwn[B];
    }
  }
  void escape(unsigned G) { Escapes[find(G)] = true; }
  void derive(Value *V, unsigned G) {
    auto [It, New] = Owner.try_emplace(V, G);
    if (!New)
      unite(It->second, G);
    else
      Work.push_back(V);
  }

  // An address turned into an integer may be tested and rounded (alignment checks, Eigen's
  // hand-aligned stack buffers) and turned back into an address based on it, nothing else.
  // Loaded: the bits of a member's address read back from the group's memory (Rust keeps a
  // String's pointer beside its capacity and reads both as integers), which may also be switched
  // on, reinterpreted as a float (a value, no address) or turned back into an address (a member).
  void integerUses(Instruction *Start, unsigned G, bool Loaded = false) {
    SmallVector<Instruction *, 8> IW{Start};
    SmallPtrSet<Instruction *, 16> Seen;
    while (!IW.empty()) {
      Instruction *I = IW.pop_back_val();
      if (!Seen.insert(I).second)
        continue;
      for (User *U : I->users()) {
        auto *UI = cast<Instruction>(U);
        if (!Live.count(UI->getParent()) || isa<ICmpInst>(UI) ||
            (Loaded && (isa<SwitchInst>(UI) || (isa<BitCastInst>(UI) && UI->getType()->isFPOrFPVectorTy()))))
          continue;
        if (auto *I2P = dyn_cast<IntToPtrInst>(UI)) {
          if (Loaded || intToPtrBase(I2P))
            derive(I2P, G);
          else
            escape(G);
        } else if (isa<BinaryOperator>(UI) || isa<TruncInst>(UI) || isa<ZExtInst>(UI) || isa<SExtInst>(UI) ||
                   isa<PHINode>(UI) || isa<SelectInst>(UI) || (Loaded && isa<FreezeInst>(UI))) {
          IW.push_back(UI);
        } else {
          escape(G);
        }
      }
    }
  }

  /// Resolves the address stores and loads the walk left pending, walking what they make
  /// members, until nothing changes; an address stored where no member lives escapes.
  void settleAddressStores() {
    SmallPtrSet<Instruction *, 16> Done;
    for (bool Changed = true; Changed;) {
      Changed = false;
      while (!Work.empty())
        uses(Work.pop_back_val());
      for (auto [SI, G] : AddressStores)
        if (auto It = Owner.find(SI->getPointerOperand()); It != Owner.end() && Done.insert(SI).second) {
          unite(It->second, G);
          HoldsOwn[find(G)] = true;
          Changed = true;
        }
      for (auto [L, G] : Loads)
        if (HoldsOwn[find(G)] && Done.insert(L).second) {
          if (L->getType()->isPointerTy())
            derive(L, G);
          else
            integerUses(L, G, /*Loaded=*/true);
          Changed = true;
        }
      Changed |= !Work.empty();
    }
    for (auto [SI, G] : AddressStores)
      if (!Done.count(SI))
        escape(G);
  }

  void uses(Value *V) {
    unsigned G = Owner.lookup(V);
    for (Use &U : V->uses()) {
      auto *I = dyn_cast<Instruction>(U.getUser());
      if (!I) {
        escape(G);
        continue;
      }
      if (!Live.count(I->getParent()))
        continue; // code that never returns is not differentiated
      if (auto *L = dyn_cast<LoadInst>(I)) {
        const DataLayout &DL = L->getDataLayout();
        if (L->getPointerOperand() == V && !L->isAtomic() &&
            (L->getType()->isPointerTy() ||
             (L->getType()->isIntegerTy() && DL.getTypeSizeInBits(L->getType()) == DL.getPointerSizeInBits())))
          Loads.push_back({L, G});
        continue;
      }
      if (isa<ICmpInst>(I))
        continue;
      if (auto *GEP = dyn_cast<GetElementPtrInst>(I)) {
        if (GEP->getPointerOperand() == V)
          derive(GEP, G);
        else
          escape(G);
      } else if (isa<BitCastInst>(I) || isa<AddrSpaceCastInst>(I) || isa<FreezeInst>(I)) {
        derive(I, G);
      } else if (isa<PHINode>(I) || isa<SelectInst>(I)) {
        if (isa<SelectInst>(I) && U.getOperandNo() == 0)
          escape(G);
        derive(I, G);
        Merges.push_back(I);
      } else if (auto *SI = dyn_cast<StoreInst>(I)) {
        if (SI->getValueOperand() == V && (SI->isAtomic() || SI->isVolatile() || !V->getType()->isPointerTy()))
          escape(G);
        else if (SI->getValueOperand() == V)
          AddressStores.push_back({SI, G}); // a member of the group only if the memory is
        else
          Stores.push_back({SI, G});
      } else if (auto *MT = dyn_cast<MemTransferInst>(I)) {
        if (U.getOperandNo() == 0)
          Copies.push_back({MT, G});
        else if (U.getOperandNo() == 1)
          CopiedFrom.push_back(G);
        else
          escape(G);
      } else if (auto *MS = dyn_cast<MemSetInst>(I)) {
        if (U.getOperandNo() != 0)
          escape(G);
        (void)MS; // fills with bytes: no derivative
      } else if (auto *II = dyn_cast<IntrinsicInst>(I)) {
        switch (II->getIntrinsicID()) {
        case Intrinsic::lifetime_start:
        case Intrinsic::lifetime_end:
        case Intrinsic::assume:
        case Intrinsic::prefetch:
        case Intrinsic::objectsize:
        case Intrinsic::invariant_start:
        case Intrinsic::invariant_end:
          break;
        case Intrinsic::launder_invariant_group:
        case Intrinsic::strip_invariant_group:
          derive(II, G);
          break;
        default:
          escape(G);
        }
      } else if (auto *P = dyn_cast<PtrToIntInst>(I)) {
        integerUses(P, G);
      } else if (auto *CB = dyn_cast<CallBase>(I)) {
        Function *F = CB->getCalledFunction();
        std::optional<Allocator> A = allocatorFor(F);
        if (!CB->isArgOperand(&U) || CB->hasOperandBundles()) {
          escape(G);
        } else if (isInactiveCallee(F)) {
          // Runs as primal code only and writes nothing with a derivative (a stream or string
          // member, printf): what it keeps of the address stays in library objects. A pointer
          // it returns may be this one (`os << x` returns os), and is followed like it.
          if (CB->getType()->isPointerTy())
            derive(CB, G);
        } else if (isIndirectTrampoline(F) && U.getOperandNo() > 0) {
          Virtuals.push_back({CB, G}); // decided once the whole group is known
        } else if (A) {
          if (A->Role != AllocRole::Free)
            escape(G);
        } else if (F && !F->isDeclaration() && !F->isVarArg() && CB->getFunctionType() == F->getFunctionType() &&
                   !hasCustomDerivative(F) && !findLocalRule(CB) && !F->hasFnAttribute(AttrFunctionLike)) {
          // A user's derivative or a rule decides that call's arguments itself.

          Calls.push_back({CB, CB->getArgOperandNo(&U), G});
        } else {
          escape(G);
        }
      } else {
        escape(G); // returned, inserted into an aggregate, atomics, ...
      }
    }
  }
};
/// The function pointer CB calls through is an entry of the vtable of an object of group R:
/// `load (gep? (load p))` with p in the group.
bool ownVtableEntry(CallBase *CB, Walk &W, unsigned R) {
  auto *Entry = dyn_cast<LoadInst>(CB->getArgOperand(0));
  if (!Entry)
    return false;
  Value *Slot = Entry->getPointerOperand();
  if (auto *GEP = dyn_cast<GetElementPtrInst>(Slot))
    Slot = GEP->getPointerOperand();
  auto *Vtable = dyn_cast<LoadInst>(Slot);
  if (!Vtable)
    return false;
  auto It = W.Owner.find(Vtable->getPointerOperand());
  return It != W.Owner.end() && W.find(It->second) == R;
}
/// A constant address that is not an object (Rust's dangling `NonNull` of an empty Vec,
/// `inttoptr (i64 8 to ptr)`): merging it with a member brings in no memory.
bool danglingAddress(const Value *V) {
  auto *CE = dyn_cast<ConstantExpr>(V);
  return CE && CE->getOpcode() == Instruction::IntToPtr && isa<ConstantInt>(CE->getOperand(0));
}
} // namespace

InertCandidates findInertCandidates(Function &F, const SmallPtrSetImpl<const BasicBlock *> &Live, Argument *ExtraRoot) {
  Walk W(Live);
  SmallVector<Value *, 16> Roots;
  for (Instruction &I : instructions(F)) {
    if (!Live.count(I.getParent()))
      continue;
    if (isa<AllocaInst>(I))
      Roots.push_back(&I);
    else if (auto *CB = dyn_cast<CallBase>(&I))
      if (std::optional<Allocator> A = allocatorFor(CB->getCalledFunction());
          A && A->Role == AllocRole::Alloc && A->Out < 0 && CB->getType()->isPointerTy())
        Roots.push_back(CB);
  }
  if (ExtraRoot)
    Roots.push_back(ExtraRoot);
  W.Parent.resize(Roots.size());
  std::iota(W.Parent.begin(), W.Parent.end(), 0u);
  W.Escapes.assign(Roots.size(), false);
  W.HoldsOwn.assign(Roots.size(), false);
  for (unsigned K = 0; K < Roots.size(); ++K)
    W.derive(Roots[K], K);
  W.settleAddressStores();
  // A merge with a pointer from elsewhere (an argument, a loaded pointer) may hold either.
  for (Instruction *M : W.Merges) {
    unsigned G = W.Owner.lookup(M);
    for (unsigned K = isa<SelectInst>(M) ? 1 : 0; K < M->getNumOperands(); ++K) {
      Value *Op = M->getOperand(K);
      if (auto It = W.Owner.find(Op); It != W.Owner.end())
        W.unite(G, It->second);
      else if (!isa<ConstantPointerNull>(Op) && !isa<UndefValue>(Op) && !danglingAddress(Op))
        W.escape(G);
    }
  }
  // A group whose memory holds its members' addresses hands them to whoever reads that memory:
  // a callee with a body (whose loads of them the callee's own check does not follow), a
  // virtual call, a copy of the bytes elsewhere.
  for (auto &E : W.Calls)
    if (W.HoldsOwn[W.find(std::get<2>(E))])
      W.escape(std::get<2>(E));
  for (auto [CB, K] : W.Virtuals)
    if (W.HoldsOwn[W.find(K)])
      W.escape(K);
  for (unsigned K : W.CopiedFrom)
    if (W.HoldsOwn[W.find(K)])
      W.escape(K);
  // A virtual call on the object (a `delete` through its vtable) keeps it inert when only
  // inactive library code wrote it, vtable included: no store puts a pointer into it and no
  // function with a body is handed it (a user's constructor would set a user's vtable).
  for (auto [CB, K] : W.Virtuals) {
    unsigned R = W.find(K);
    bool Called = any_of(W.Calls, [&](auto &E) { return W.find(std::get<2>(E)) == R; });
    bool Copied = any_of(W.Copies, [&](auto &E) { return W.find(E.second) == R; });
    bool PointerStored = any_of(W.Stores, [&](auto &E) {
      return W.find(E.second) == R && E.first->getValueOperand()->getType()->isPtrOrPtrVectorTy();
    });
    if (Called || Copied || PointerStored || !ownVtableEntry(CB, W, R))
      W.escape(R);
  }
  InertCandidates C;
  DenseMap<unsigned, unsigned> Index;
  auto groupOf = [&](unsigned K) -> InertCandidates::Group * {
    unsigned R = W.find(K);
    if (W.Escapes[R])
      return nullptr;
    auto [It, New] = Index.try_emplace(R, C.Groups.size());
    if (New)
      C.Groups.emplace_back();
    return &C.Groups[It->second];
  };
  // The extra root's group first, so that it can be moved to the end below.
  for (unsigned K = Roots.size(); K-- > 0;)
    if (auto *G = groupOf(K))
      G->Roots.push_back(Roots[K]);
  for (auto [S, K] : W.Stores)
    if (auto *G = groupOf(K))
      G->Stores.push_back(S);
  for (auto [M, K] : W.Copies)
    if (auto *G = groupOf(K))
      G->Copies.push_back(M);
  for (auto [CB, A, K] : W.Calls)
    if (auto *G = groupOf(K))
      G->Calls.push_back({CB, A});
  if (ExtraRoot) {
    auto *G = groupOf(Roots.size() - 1);
    if (!G) // the argument escapes: an empty, dead group keeps "last is the argument's"
      C.Groups.push_back(InertCandidates::Group{{ExtraRoot}, {}, {}, {}, false});
    else
      std::swap(*G, C.Groups.back());
  }
  return C;
}

SmallPtrSet<const Value *, 8> libraryObjects(Function &F, const SmallPtrSetImpl<const BasicBlock *> &Live) {
  SmallPtrSet<const Value *, 8> S;
  for (const InertCandidates::Group &G : findInertCandidates(F, Live).Groups)
    if (G.Stores.empty() && G.Copies.empty() && G.Calls.empty())
      S.insert(G.Roots.begin(), G.Roots.end());
  return S;
}

} // namespace synthase
